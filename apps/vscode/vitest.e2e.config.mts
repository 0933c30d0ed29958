import { defineConfig } from 'vitest/config';

// End-to-end tests: the packaged .vsix in a real VS Code (code-server) driven through Chromium.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    // The test process's own cache folder, data folder and spend ledger (the CLI a test runs
    // inherits them); code-server's extension host gets folders of the server's (code-server.ts).
    setupFiles: ['@enrich/bulk/test-folders'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
