import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'src/**/*.test.ts'],
    setupFiles: ['tests/fixtures/contract-check.setup.ts'],
    // One PostgreSQL server per test process, started by the first test that needs a database, stopped after the run.
    globalSetup: ['tests/fixtures/postgres.global-setup.ts'],
    // Test files share their workers and module cache: Mastra and the app are imported once per worker, not
    // once per file. No test relies on fresh module state (each builds its own app with createApp).
    isolate: false,
    // Vitest's default is one worker fewer than the cores: a single worker on two, where most of a test's time is
    // waiting (a process starting, a socket, a timer) rather than computing. One worker more than the cores overlaps
    // those waits (on two idle cores: 93 s with two workers, 79 s with three, 78 s with four).
    maxWorkers: availableParallelism() + 1,
    // Minutes each (a browser on Studio, a real `mastra build`): `npm run test:e2e`.
    exclude: ['tests/e2e/**', '**/node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
