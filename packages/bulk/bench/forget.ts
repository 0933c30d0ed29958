// Issue 38's figure: forgetting 1,000 people in a journal of 1,000,000 answers (`enrich forget --in`
// of a list of 1,000), the rewrite crash-safe under the journal's lock. Prints the journal's size,
// the time of the forget (the whole rewrite: read, match, write aside, fsync, rename) against the
// 10 s target, and the time of a pass that removes nothing (reading and matching only), which
// shows what the matching costs. `BENCH_FORGET_ANSWERS` and `BENCH_FORGET_PEOPLE` scale it.
// Run alone: `node --import tsx bench/forget.ts` (never beside a test suite: figures are noisy).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Identity, IdentityMatcher } from '@enrich/core';
import { rewriteJournal } from '../src/forget/journal-rewrite.js';
import { madePhone, makeJournal } from '../test/journal-maker.js';

const ANSWERS = Number(process.env.BENCH_FORGET_ANSWERS ?? 1_000_000);
const PEOPLE = Number(process.env.BENCH_FORGET_PEOPLE ?? 1_000);
const TARGET_S = 10;

function people(count: number): Identity[] {
  // Spread over the journal: a phone each, every tenth with an e-mail and every fifth with a name and
  // street line too (no answer holds those: they cost the matching, not the writing).
  const step = Math.floor(ANSWERS / count);
  const found: Identity[] = [];
  for (let i = 0; i < count; i++) {
    found.push({ kind: 'phone', value: madePhone(i * step + 3) });
    if (i % 10 === 0) found.push({ kind: 'email', value: `person${i}@example.com` });
    if (i % 5 === 0) found.push({ kind: 'name-address', value: `jane doe${i}|${i} elm st` });
  }
  return found;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-forget-bench-'));
  try {
    const journal = join(dir, '.enrich-cache.jsonl');
    let started = performance.now();
    makeJournal(journal, ANSWERS);
    const size = statSync(journal).size;
    console.log(
      `journal: ${ANSWERS.toLocaleString('en-US')} answers, ${(size / 2 ** 20).toFixed(0)} MiB, written in ${((performance.now() - started) / 1000).toFixed(1)} s; load average ${loadavg()[0]?.toFixed(1)}`,
    );
    const nobody = new IdentityMatcher([{ kind: 'phone', value: '5559999999' }]);
    started = performance.now();
    const none = await rewriteJournal(journal, (line) => nobody.find(line) !== undefined);
    const scanS = (performance.now() - started) / 1000;
    console.log(
      `a forget that removes nothing (read and match only): ${scanS.toFixed(2)} s, ${none.removed} removed`,
    );

    const identities = people(PEOPLE);
    const matcher = new IdentityMatcher(identities);
    started = performance.now();
    const result = await rewriteJournal(journal, (line) => matcher.find(line) !== undefined);
    const forgetS = (performance.now() - started) / 1000;
    const verdict = forgetS < TARGET_S ? 'met' : 'NOT met';
    console.log(
      `forget ${PEOPLE.toLocaleString('en-US')} people (${identities.length} identities): ${forgetS.toFixed(2)} s, ${result.removed} answers removed, ${result.kept.toLocaleString('en-US')} kept; target < ${TARGET_S} s: ${verdict}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
