import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'src/**/*.test.ts'],
    // Minutes each (a browser on Studio, a real `mastra build`): `npm run test:e2e`.
    exclude: ['tests/e2e/**', '**/node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
