import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each test starts the built server (a Node process) once or more.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
