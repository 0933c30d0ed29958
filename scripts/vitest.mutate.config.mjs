// The tests Stryker runs against each mutant (scripts/stryker.config.mjs): only the test files
// that cover the module under mutation, listed in the package's mutation.json and passed in
// MUTATE_TESTS by scripts/mutate.mjs. No type tests, no global set-up: these import the sources.
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer } from 'vitest/node';

const listed = (process.env.MUTATE_TESTS ?? '').split(',').filter(Boolean);

/**
 * Files in the order mutation.json lists them (the quick ones first there), not vitest's (the
 * slowest first): a mutant stops at its first failing test, so one that a quick file kills is not
 * kept waiting for a slow one. Which mutants die is the same in any order; only the time changes.
 */
class ListedOrder extends BaseSequencer {
  async sort(files) {
    const rank = (spec) => {
      const at = listed.indexOf(relative(process.cwd(), spec.moduleId));
      return at === -1 ? listed.length : at;
    };
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  root: process.cwd(),
  test: {
    include: listed,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    sequence: { sequencer: ListedOrder },
  },
});
