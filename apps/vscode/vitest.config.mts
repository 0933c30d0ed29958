import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Unit tests run the extension's modules against a stand-in of the `vscode` module.
export default defineConfig({
  resolve: { alias: { vscode: fileURLToPath(new URL('./test/vscode-stub.ts', import.meta.url)) } },
  test: {
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
