import { defineConfig } from 'vitest/config';

// End-to-end tests: the packaged .vsix in a real VS Code (code-server) driven through Chromium.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
