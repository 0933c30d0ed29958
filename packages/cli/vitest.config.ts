import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Every test file's own cache folder, data folder and spend ledger, never the user's (the
    // helpers' isolatedEnv() also gives each command a cache folder of its own).
    setupFiles: ['@enrich/bulk/test-folders'],
  },
});
