import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The vm test builds the bundle first; the rest are pure and fast.
    testTimeout: 20_000,
    // The SDK's type tests (test/*.test-d.ts) run through tsc as part of `vitest run`.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.node.json' },
  },
});
