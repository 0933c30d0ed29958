import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Unit tests run the extension's modules against a stand-in of the `vscode` module.
export default defineConfig({
  resolve: { alias: { vscode: fileURLToPath(new URL('./test/vscode-stub.ts', import.meta.url)) } },
  test: {
    include: ['test/unit/**/*.test.ts'],
    // Every test file's own cache folder, data folder and spend ledger, never the user's.
    setupFiles: ['@enrich/bulk/test-folders'],
    testTimeout: 30_000,
  },
});
