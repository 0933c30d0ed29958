// A forget of some phones in one journal, in a process of its own, for the kill test
// (forget-kill.test.ts kills it at random moments). Run with `node --import tsx`; reads
// ENRICH_TEST_JOURNAL and ENRICH_TEST_PHONES (comma-separated); says "reading" when it starts and
// "renaming" just before the new journal is renamed into place (with ENRICH_TEST_HOLD=1, waits
// there to be killed), then "done".
import { IdentityMatcher } from '@enrich/core';
import { rewriteJournal } from '../src/forget/journal-rewrite.ts';

const phones = process.env.ENRICH_TEST_PHONES.split(',');
const matcher = new IdentityMatcher(phones.map((value) => ({ kind: 'phone', value })));
process.stdout.write('reading\n');
const result = await rewriteJournal(
  process.env.ENRICH_TEST_JOURNAL,
  (line) => matcher.find(line) !== undefined,
  {
    // Says so, then (ENRICH_TEST_HOLD=1) holds still (a write to a pipe is synchronous on Linux),
    // so that the test's kill lands before the rename however loaded the machine: otherwise the
    // rename often won, and a run without an old journal kept failed the test now and then.
    beforeRename: () => {
      process.stdout.write('renaming\n');
      if (process.env.ENRICH_TEST_HOLD === '1')
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30_000);
    },
  },
);
process.stdout.write(`done ${result.removed}\n`);
