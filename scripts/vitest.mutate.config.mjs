// The tests Stryker runs against each mutant (scripts/stryker.config.mjs): only the test files
// that cover the module under mutation, listed in the package's mutation.json and passed in
// MUTATE_TESTS by scripts/mutate.mjs. No type tests, no global set-up: these import the sources.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: process.cwd(),
  test: {
    include: (process.env.MUTATE_TESTS ?? '').split(',').filter(Boolean),
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
