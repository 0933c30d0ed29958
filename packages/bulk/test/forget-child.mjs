// A forget of some phones in one journal, in a process of its own, for the kill test
// (forget-kill.test.ts kills it at random moments). Run with `node --import tsx`; reads
// ENRICH_TEST_JOURNAL and ENRICH_TEST_PHONES (comma-separated); says "reading" when it starts and
// "renaming" just before the new journal is renamed into place, then "done".
import { IdentityMatcher } from '@enrich/core';
import { rewriteJournal } from '../src/forget/journal-rewrite.ts';

const phones = process.env.ENRICH_TEST_PHONES.split(',');
const matcher = new IdentityMatcher(phones.map((value) => ({ kind: 'phone', value })));
process.stdout.write('reading\n');
const result = await rewriteJournal(
  process.env.ENRICH_TEST_JOURNAL,
  (line) => matcher.find(line) !== undefined,
  {
    beforeRename: () => process.stdout.write('renaming\n'),
  },
);
process.stdout.write(`done ${result.removed}\n`);
