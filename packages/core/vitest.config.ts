import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The vm test builds the bundle first; the rest are pure and fast.
    testTimeout: 20_000,
  },
});
