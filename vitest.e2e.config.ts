import { defineConfig } from 'vitest/config';

/** The slow end-to-end tests: `npm run dev` in a browser, `npm run build` and its output. One file at a time. */
export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 600_000,
  },
});
