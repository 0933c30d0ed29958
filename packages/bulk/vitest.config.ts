import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The tests are in test/ only: never a copy elsewhere in the package, such as the sandboxes
    // StrykerJS makes in .stryker-tmp/ while `pnpm mutate` runs (scripts/stryker.config.mjs).
    include: ['test/**/*.test.ts'],
    // Every test file's own cache folder, data folder and spend ledger, never the user's.
    setupFiles: ['test/test-folders.ts'],
  },
});
