// Issue 35, item 7: formulas running at the same time share one purchase (README, "Formulas running
// at the same time"). The buyer renews its in-flight markers every round; a formula that finds one
// keeps waiting while it is live, and when its own time runs out it answers "still being fetched"
// without paying: it never buys what another execution is still fetching.
import { expect, test } from 'vitest';
import { newRuntime, phone, referenceRecord } from './helpers.js';
import type { Runtime } from './runtime/index.js';

const PHONES = Array.from({ length: 1000 }, (_, i) => Number(phone(i)));
const COLUMN = PHONES.map((p) => [p]);

function fname(p: number): string {
  return referenceRecord('/v3/lookup/phone', { Phone: String(p) }).Name.FName;
}

/** Values of the calls, failing the test on any whole-call error. */
function values(results: ({ value: unknown } | { error: string })[]): string[][][] {
  return results.map((r) => {
    if ('error' in r) throw new Error(`a formula failed: ${r.error}`);
    return r.value as string[][];
  });
}

function longest(rt: Runtime): number {
  return Math.max(...rt.executions.map((e) => e.ended - e.started));
}

test('two range formulas over the same 1,000 phones, different fields, 700 ms a request: 1,000 transactions', () => {
  const rt = newRuntime({ latencyMs: 700 });
  const [first, second] = values(
    rt.runConcurrently([
      { user: rt.owner, mode: 'custom', fn: 'PHONELOOKUP', args: [COLUMN, 'FName'] },
      { user: rt.collaborator, mode: 'custom', fn: 'PHONELOOKUP', args: [COLUMN, 'FName,City'] },
    ]),
  );
  // Before the fix: the second formula stopped waiting after 15 s and bought what the first was still
  // fetching (1,200 for 1,000).
  expect(rt.sandbox.transactions()).toBe(1000);
  PHONES.forEach((p, i) => {
    expect(first?.[i]).toEqual([fname(p)]);
    expect(second?.[i]?.[0]).toBe(fname(p));
  });
  expect(longest(rt)).toBeLessThan(30_000);
});

test('a range formula and 29 single-cell formulas waiting on it: 1,000 transactions', () => {
  const rt = newRuntime({ latencyMs: 700 });
  // The singles ask for the last phones of the range, the ones it buys last.
  const singles = PHONES.slice(-29);
  const results = values(
    rt.runConcurrently(
      [
        { user: rt.owner, mode: 'custom', fn: 'PHONELOOKUP', args: [COLUMN, 'FName'] },
        ...singles.map((p) => ({
          user: rt.owner,
          mode: 'custom' as const,
          fn: 'PHONELOOKUP',
          args: [p, 'FName'],
        })),
      ],
      30,
    ),
  );
  // Before the fix: 1,029 (each single bought its own after waiting 15 s).
  expect(rt.sandbox.transactions()).toBe(1000);
  singles.forEach((p, i) => {
    expect(results[i + 1]).toEqual([[fname(p)]]);
  });
  expect(longest(rt)).toBeLessThan(30_000);
});

test('a buyer still fetching when a waiter runs out of time: the waiter says so and pays nothing', () => {
  // The waiting formula started first, but the document lock was busy (another action held it for
  // 2 s), and the range formula, started a second later, claimed the phones first: it buys 4,000
  // phones at 300 ms a request, renewing its marks every round, until its own time is up, a second
  // after the waiter's. The waiter waits while the mark is live, then answers without buying.
  const rt = newRuntime({ latencyMs: 300 });
  const column = Array.from({ length: 4000 }, (_, i) => [Number(phone(i))]);
  const last = column.at(-1)?.[0] as number;
  const holder = {
    user: rt.collaborator,
    mode: 'full' as const,
    fn: '(snippet)',
    args: [],
    snippet: 'var l = LockService.getDocumentLock(); l.tryLock(1000); Utilities.sleep(2000); l.releaseLock()',
  };
  const range = { user: rt.owner, mode: 'custom' as const, fn: 'PHONELOOKUP', args: [column, 'FName'] };
  const single = { user: rt.owner, mode: 'custom' as const, fn: 'PHONELOOKUP', args: [last, 'FName'] };
  const [, rangeOut, singleOut] = rt.runConcurrently([holder, { ...range, startsAfterMs: 1000 }, single]);
  const rangeRows = (rangeOut as { value: string[][] }).value;
  const rangeDone = rangeRows.filter((r) => !/^Not finished/.test(String(r[0]))).length;
  expect(rangeDone).toBeGreaterThan(0);
  expect(rangeDone).toBeLessThan(4000);
  expect(rt.sandbox.transactions()).toBe(rangeDone);
  expect(String((singleOut as { value: string[][] }).value[0]?.[0])).toMatch(
    /^Still being fetched by another formula in this spreadsheet; recalculate in a moment/,
  );
  expect(longest(rt)).toBeLessThan(30_000);

  // Recalculated, the two finish the job between them, each phone bought once.
  for (let i = 0; i < 10 && rt.sandbox.transactions() < 4000; i++)
    values(rt.runConcurrently([range, single]));
  expect(rt.sandbox.transactions()).toBe(4000);
  expect(longest(rt)).toBeLessThan(30_000);
});
