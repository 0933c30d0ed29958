// Issue 41: the work fetch-once (src/server/formulas/fetch-once.ts) does for a formula, counted. Each
// cache call takes its time on the platform, and the document lock holds up every other formula of
// the spreadsheet while it is held: a formula reads and writes the cache as few times as its steps
// need, and takes the lock only to claim and to save. The tests of outcomes cannot see a lock taken
// or a cache call made for nothing (`apps/sheets/mutation.md`); these count them, in the order the
// fake runtime saw them (runtime/execution.ts, `calls`). Times below are virtual.
import { expect, test } from 'vitest';
import { newRuntime, phone, referenceRecord } from './helpers.js';
import type { Runtime } from './runtime/index.js';
import type { ConcurrentCall } from './runtime/run-concurrently.js';

/** Before anything is claimed: the cells' kept answers, the allowance's count, then fetch-once's look. */
const LOOK = ['cache.getAll', 'cache.getAll', 'cache.getAll'];
/** The claim, under the lock: one read (answers, marks, allowance), one write (marks and count). */
const CLAIM = ['lock', 'cache.getAll', 'cache.putAll'];
/** After a round, under the lock: one read, the answers and round time put, emptied mark items removed. */
const SAVE = ['lock', 'cache.getAll', 'cache.putAll', 'cache.removeAll'];
/** One look at another execution's purchase: its marks, then the answers. */
const POLL = ['cache.getAll', 'cache.getAll'];

/** =PHONELOOKUP over a column of phones: one execution. */
function range(rt: Runtime, phones: readonly string[], startsAfterMs = 0): ConcurrentCall {
  return {
    user: rt.owner,
    mode: 'custom',
    fn: 'PHONELOOKUP',
    args: [phones.map((p) => [p]), 'FName'],
    startsAfterMs,
  };
}

function fname(p: string): string {
  return referenceRecord('/v3/lookup/phone', { Phone: p }).Name.FName;
}

/** Runs the calls at once; each formula's cells, and the calls each made. */
function run(rt: Runtime, calls: readonly ConcurrentCall[]) {
  const before = rt.executions.length;
  const results = rt.runConcurrently(calls);
  const cells = results.map((r) => {
    if ('error' in r) throw new Error(`an execution failed: ${r.error}`);
    return Array.isArray(r.value) ? (r.value as unknown[][]).map((row) => String(row[0])) : [];
  });
  return { cells, calls: rt.executions.slice(before).map((e) => e.calls) };
}

test('a formula buying three new inputs alone: one claim, one round saved, the lock twice', () => {
  const rt = newRuntime({ latencyMs: 100 });
  const phones = [phone(1), phone(2), phone(3)];
  const { cells, calls } = run(rt, [range(rt, phones)]);
  expect(cells).toEqual([phones.map(fname)]);
  expect(rt.sandbox.transactions()).toBe(3);
  // Nothing after the save: no marks left to remove, nobody to wait for.
  expect(calls).toEqual([[...LOOK, ...CLAIM, ...SAVE]]);
  // Asked again, the kept answers: one read, no lock.
  expect(run(rt, [range(rt, phones)]).calls).toEqual([['cache.getAll']]);
});

test('fifty new inputs: two rounds of at most 40, each saved once', () => {
  const rt = newRuntime({ latencyMs: 100 });
  const phones = Array.from({ length: 50 }, (_, i) => phone(100 + i));
  const { cells, calls } = run(rt, [range(rt, phones)]);
  expect(cells).toEqual([phones.map(fname)]);
  expect(rt.sandbox.transactions()).toBe(50);
  expect(calls).toEqual([[...LOOK, ...CLAIM, ...SAVE, ...SAVE]]);
});

test('the allowance spent: the claim writes nothing, and nothing is bought or saved', () => {
  const rt = newRuntime({ latencyMs: 100, allowance: { day: 3, month: 100 } });
  run(rt, [range(rt, [phone(1), phone(2), phone(3)])]);
  const { cells, calls } = run(rt, [range(rt, [phone(4), phone(5)])]);
  expect(cells[0]?.every((c) => c.startsWith('Allowance reached (3 a day'))).toBe(true);
  expect(rt.sandbox.transactions()).toBe(3);
  // The claim reads under the lock and finds nothing granted; the allowance is read again for the
  // cells' message.
  expect(calls).toEqual([[...LOOK, 'lock', 'cache.getAll', 'cache.getAll']]);
});

test('an input another formula is buying: waited for in polls of 500 ms, none after its answer', () => {
  // The first formula claims at once and its request takes 3 s; the second, 0.5 s later, finds the
  // mark and looks every 500 ms until the answer is kept: seven looks, the last finding it.
  const rt = newRuntime({ latencyMs: 3_000 });
  const { cells, calls } = run(rt, [range(rt, [phone(7)]), range(rt, [phone(7)], 500)]);
  expect(cells).toEqual([[fname(phone(7))], [fname(phone(7))]]);
  expect(rt.sandbox.transactions()).toBe(1);
  expect(calls[0]).toEqual([...LOOK, ...CLAIM, ...SAVE]);
  expect(calls[1]).toEqual([...LOOK, ...Array.from({ length: 7 }, () => POLL).flat()]);
  // It returns at the look that found the answer, not after one more wait.
  const [buyer, waiter] = rt.executions.slice(-2);
  expect((waiter?.ended ?? 0) - (buyer?.ended ?? 0)).toBeLessThan(500);
});

test('a mark left by a formula the platform stopped is taken over once it expires, and the round saved once', () => {
  const rt = newRuntime({ latencyMs: 100 });
  rt.extraLatencyMs = 40_000;
  expect(rt.runConcurrently([range(rt, [phone(9)])])).toEqual([{ error: 'Exceeded maximum execution time' }]);
  rt.extraLatencyMs = 0;
  rt.passTime(1_000);
  const { cells, calls } = run(rt, [range(rt, [phone(9)])]);
  expect(cells).toEqual([[fname(phone(9))]]);
  // The first request reached the service before the platform stopped its formula: bought twice,
  // as the platform's limit allows (its answer came too late to keep).
  expect(rt.sandbox.transactions()).toBe(2);
  expect(calls).toEqual([[...LOOK, ...CLAIM, ...SAVE]]);
});

test('the allowance grants part of a claim: marks put for what it grants, nothing written for the rest', () => {
  const rt = newRuntime({ latencyMs: 100, allowance: { day: 3, month: 100 } });
  run(rt, [range(rt, [phone(1), phone(2)])]);
  const { cells, calls } = run(rt, [range(rt, [phone(4), phone(5)])]);
  expect(cells[0]?.[0]).toBe(fname(phone(4)));
  expect(cells[0]?.[1]).toMatch(/^Allowance reached \(3 a day/);
  expect(rt.sandbox.transactions()).toBe(3);
  expect(calls).toEqual([[...LOOK, ...CLAIM, ...SAVE, 'cache.getAll']]);
});

test('the expired marks of inputs the allowance holds back are removed in the claim', () => {
  // A formula the platform stopped left its marks on two inputs (and counted both); once they have
  // expired, the next claim is granted one: it marks that one and removes the other's mark item.
  const rt = newRuntime({ latencyMs: 100, allowance: { day: 3, month: 100 } });
  rt.extraLatencyMs = 40_000;
  rt.runConcurrently([range(rt, [phone(1), phone(2)])]);
  rt.extraLatencyMs = 0;
  rt.passTime(1_000);
  const { cells, calls } = run(rt, [range(rt, [phone(1), phone(2)])]);
  expect(cells[0]?.[0]).toBe(fname(phone(1)));
  expect(cells[0]?.[1]).toMatch(/^Allowance reached \(3 a day/);
  expect(calls).toEqual([[...LOOK, ...CLAIM, 'cache.removeAll', ...SAVE, 'cache.getAll']]);
});

test('behind another action holding the lock 5 s: the claim asks in slices of 2 s, reading the round time between', () => {
  const rt = newRuntime({ latencyMs: 100 });
  const holder: ConcurrentCall = {
    user: rt.collaborator,
    mode: 'full',
    fn: '(snippet)',
    args: [],
    snippet:
      'var l = LockService.getDocumentLock(); if (l.tryLock(30000)) { Utilities.sleep(5000); l.releaseLock(); }',
  };
  const { cells, calls } = run(rt, [holder, range(rt, [phone(3)], 100)]);
  expect(cells[1]).toEqual([fname(phone(3))]);
  // A tryLock that waits is in the record twice: asked, then answered when the lock is let go or
  // its slice ends. Refused at 2 s and 4 s, each time followed by a look at the round time; won at 5 s.
  const waited = ['lock', 'lock'];
  const refused = [...waited, 'cache.get'];
  expect(calls[1]).toEqual([...LOOK, ...refused, ...refused, ...waited, ...CLAIM.slice(1), ...SAVE]);
});

test('the cache failing at the save after a round: the answers kept once more without the lock, and the log says so', () => {
  const rt = newRuntime({ latencyMs: 100 });
  const phones = [phone(21), phone(22)];
  // The claim's putAll goes through; the save's, the next, fails once.
  const message =
    'Unexpected error while getting the method or property putAll on object CacheService.Cache.';
  rt.documentCache.fault = { method: 'putAll', skip: 1, message };
  const { cells, calls } = run(rt, [range(rt, phones)]);
  expect(cells).toEqual([phones.map(fname)]);
  // The save fails at its put; the answers are kept once more (under the lock if it is free at once:
  // a read and a put); the marks, still standing, are removed at the end of the purchase.
  const keptAgain = ['lock', 'cache.getAll', 'cache.putAll'];
  const unmarked = ['lock', 'cache.getAll', 'cache.removeAll'];
  expect(calls).toEqual([[...LOOK, ...CLAIM, ...SAVE.slice(0, 3), ...keptAgain, ...unmarked]]);
  expect(rt.logs.filter((l) => l.includes("Could not keep a round's answers"))).toEqual([
    expect.stringContaining(message),
  ]);
  expect(rt.logs.join('\n')).not.toContain(phones[0]);
  expect(run(rt, [range(rt, phones)]).calls).toEqual([['cache.getAll']]);
  expect(rt.sandbox.transactions()).toBe(2);
});
