import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Every test file's own cache folder, data folder and spend ledger, never the user's.
    setupFiles: ['@enrich/bulk/test-folders'],
    // Each test starts the built server (a Node process) once or more.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
