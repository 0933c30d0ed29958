import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Every test file's own cache folder, data folder and spend ledger, never the user's.
    setupFiles: ['@enrich/bulk/test-folders'],
    // Tests start the built server (Node processes), the sandbox and a PostgreSQL cluster.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // One file at a time: the PostgreSQL tests start their own cluster, and the machine is shared.
    fileParallelism: false,
  },
});
