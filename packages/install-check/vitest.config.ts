import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // npm installs and tsc runs: seconds each on a shared two-core machine.
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
