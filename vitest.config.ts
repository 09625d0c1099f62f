import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** What needs real processes, system packages or PostgreSQL servers: named `*.system.test.ts`, next to the fast tests. */
const SYSTEM_TESTS = '**/*.system.test.ts';
/**
 * System tests whose bounds depend on the server keeping up: a memory bound while clients stall (backpressure),
 * deadlines of a second or two (turns). They run after the rest of the layer, two at a time: beside it (speech
 * decoding on every core, services starting) the backpressure server's second wave added 220 to 301 MB to its peak
 * in 4 of 7 runs, against a 300 MB bound (one failure); after it, 17 and 37 MB.
 */
const TIMING_TESTS = ['tests/backpressure.system.test.ts', 'tests/turns.system.test.ts'];

/**
 * Two layers in one config, so `npx vitest run path/to/file` runs any test file whatever its layer:
 * - `fast` (`npm test`): unit tests next to their modules and in-process HTTP tests through `createApp(config)`.
 *   It needs nothing but `npm install`: starting a child process fails its test (tests/fixtures/no-processes.setup.ts).
 * - `system` and then `system-timing` (`npm run test:system`): real service processes (start-up, restarts, kill -9,
 *   sockets), PostgreSQL servers, real speech decoding (PocketSphinx, ffmpeg, flite).
 * The end-to-end tests (Studio in Chromium, `mastra build`) have their own config: vitest.e2e.config.ts.
 */
export default defineConfig({
  test: {
    setupFiles: ['tests/fixtures/contract-check.setup.ts', 'tests/fixtures/held-log.setup.ts'],
    // Test files share their workers and module cache: Mastra and the app are imported once per worker, not
    // once per file. No test relies on fresh module state (each builds its own app with createApp).
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 60_000,
    projects: [
      {
        test: {
          name: 'fast',
          include: ['tests/**/*.test.ts', 'src/**/*.test.ts'],
          exclude: [SYSTEM_TESTS, 'tests/e2e/**', '**/node_modules/**'],
          setupFiles: ['tests/fixtures/no-processes.setup.ts'],
          // Computing rather than waiting: one worker per core (on two idle cores: 21.8 s and 40 CPU-s with two
          // workers, 23.3 s and 44.5 CPU-s with three, each importing the app once more).
          maxWorkers: availableParallelism(),
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'system',
          include: [`tests/${SYSTEM_TESTS}`, `src/${SYSTEM_TESTS}`],
          exclude: ['tests/e2e/**', '**/node_modules/**', ...TIMING_TESTS],
          // Many of these wait (a process starting, a socket, Node's 30 s connection check): one worker more than
          // the cores overlaps those waits (the suite before it had layers, on two idle cores: 93 s with two workers,
          // 79 s with three).
          maxWorkers: availableParallelism() + 1,
          // After the fast layer when both run at once (`npx vitest run`): the two worker counts cannot share a group.
          sequence: { groupOrder: 1 },
          // One PostgreSQL server per test process, started by the first test that needs a database, stopped after the run.
          globalSetup: ['tests/fixtures/postgres.global-setup.ts'],
        },
      },
      {
        test: {
          name: 'system-timing',
          include: TIMING_TESTS,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
