import { defineConfig } from 'vitest/config';

/**
 * The slow end-to-end tests: `npm run dev` in a browser, `npm run build` and its output. Each works in a copy of
 * the project on free ports, so the two files run side by side (on two idle cores: 79 s instead of 89-96 s one
 * after the other; Studio's file takes 78 s instead of 54 s beside the build, well within its timeouts).
 */
export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.test.ts'],
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 600_000,
  },
});
