import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** What needs real processes, system packages or PostgreSQL servers: named `*.system.test.ts`, next to the fast tests. */
const SYSTEM_TESTS = '**/*.system.test.ts';

/**
 * Two layers in one config, so `npx vitest run path/to/file` runs any test file whatever its layer:
 * - `fast` (`npm test`): unit tests next to their modules and in-process HTTP tests through `createApp(config)`.
 *   It needs nothing but `npm install`: starting a child process fails its test (tests/fixtures/no-processes.setup.ts).
 * - `system` (`npm run test:system`): real service processes (start-up, restarts, kill -9, sockets), PostgreSQL
 *   servers, real speech decoding (PocketSphinx, ffmpeg, flite).
 * The end-to-end tests (Studio in Chromium, `mastra build`) have their own config: vitest.e2e.config.ts.
 */
export default defineConfig({
  test: {
    setupFiles: ['tests/fixtures/contract-check.setup.ts'],
    // Test files share their workers and module cache: Mastra and the app are imported once per worker, not
    // once per file. No test relies on fresh module state (each builds its own app with createApp).
    isolate: false,
    // Vitest's default is one worker fewer than the cores: a single worker on two, where many tests spend their
    // time waiting (a process starting, a socket, a timer) rather than computing. One worker more than the cores
    // overlaps those waits (on two idle cores, the suite before it had layers: 93 s with two workers, 79 s with three).
    maxWorkers: availableParallelism() + 1,
    testTimeout: 20_000,
    hookTimeout: 60_000,
    projects: [
      {
        test: {
          name: 'fast',
          include: ['tests/**/*.test.ts', 'src/**/*.test.ts'],
          exclude: [SYSTEM_TESTS, 'tests/e2e/**', '**/node_modules/**'],
          setupFiles: ['tests/fixtures/no-processes.setup.ts'],
        },
      },
      {
        test: {
          name: 'system',
          include: [`tests/${SYSTEM_TESTS}`, `src/${SYSTEM_TESTS}`],
          exclude: ['tests/e2e/**', '**/node_modules/**'],
          // One PostgreSQL server per test process, started by the first test that needs a database, stopped after the run.
          globalSetup: ['tests/fixtures/postgres.global-setup.ts'],
        },
      },
    ],
  },
});
