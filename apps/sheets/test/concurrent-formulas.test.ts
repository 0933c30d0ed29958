// Must show 2: =PHONELOOKUP(A2) filled down 1,000 rows (800 distinct phones) runs as 1,000 separate
// custom-function executions, up to 30 at the same time (runtime/concurrent.ts), and pays once per
// distinct input: an execution that finds another one buying the same answer waits for it.
import { expect, test } from 'vitest';
import { newRuntime, phone, referenceRecord } from './helpers.js';
import type { Runtime } from './runtime/index.js';

/** 800 distinct phones, then 200 repeats of earlier ones, spread through the column. */
function filledDown(rt: Runtime): number[] {
  rt.sheet().maxRows = 1200;
  const rows: number[] = Array.from({ length: 800 }, (_, i) => Number(phone(i)));
  for (let k = 0; k < 200; k++) rows.splice(5 * k + 4, 0, rows[(k * 37) % (4 * k + 4)] as number);
  rt.type('Sheet1', 'A1', [['Phone']]);
  rt.type(
    'Sheet1',
    'A2:A1001',
    rows.map((p) => [p]),
  );
  rows.forEach((_, i) => {
    rt.type('Sheet1', `B${i + 2}`, [[`=PHONELOOKUP(A${i + 2}, "FName")`]]);
  });
  return rows;
}

/** The largest number of executions running at the same moment. */
function mostAtOnce(rt: Runtime): number {
  const events = rt.executions
    .filter((e) => e.mode === 'custom')
    .flatMap((e) => [
      [e.started, 1],
      [e.ended, -1],
    ])
    .sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number));
  let now = 0;
  let most = 0;
  for (const [, d] of events) {
    now += d as number;
    most = Math.max(most, now);
  }
  return most;
}

test('1,000 single-cell formulas filled down, 30 at a time: transactions = distinct inputs', () => {
  const rt = newRuntime({ latencyMs: 300 });
  const rows = filledDown(rt);
  const started = rt.clock.now();
  const { formulas, errors } = rt.recalculateConcurrently(rt.owner, 30);
  expect(formulas).toBe(1000);
  expect(errors).toEqual([]);
  const distinct = new Set(rows).size;
  expect(distinct).toBe(800);
  expect(rt.sandbox.transactions()).toBe(distinct);
  expect(mostAtOnce(rt)).toBe(30);
  for (const e of rt.executions.filter((x) => x.mode === 'custom'))
    expect(e.ended - e.started).toBeLessThan(30_000);
  const out = rt.values('Sheet1', 'B2:B1001');
  rows.forEach((p, i) => {
    expect(out[i]).toEqual([referenceRecord('/v3/lookup/phone', { Phone: String(p) }).Name.FName]);
  });
  console.log(
    `1,000 single-cell =PHONELOOKUP formulas (${distinct} distinct), ${mostAtOnce(rt)} executions at once, 300 ms per request: ` +
      `${rt.sandbox.transactions()} transactions, ${rt.http.length} requests, ${rt.clock.now() - started} ms virtual`,
  );
});

// Each execution running at once has a thread of its own in the runtime (run-concurrently.ts): a
// thousand threads take a minute or two to start and run on two CPUs.
test('all 1,000 at once (no cap on simultaneous executions): every distinct input bought once, in one pass, none too busy', {
  timeout: 600_000,
}, () => {
  // Every purchase first claims its transactions against the allowance under the document lock
  // (issue 39). The lock is held for one read and one write of the cache at a time, and a claim
  // waits for it while a round would still fit (timed by the formulas before it): with 1,000
  // executions queued for it, each still claims in time (before this, 620 cells said "too busy").
  const rt = newRuntime({ latencyMs: 300 });
  const rows = filledDown(rt);
  expect(rt.recalculateConcurrently(rt.owner, 1000).errors).toEqual([]);
  const first = rt.sandbox.transactions();
  const firstValues = rt.values('Sheet1', 'B2:B1001');
  const busy = firstValues.filter((r) =>
    String(r[0]).startsWith('Not bought: the spreadsheet was too busy'),
  ).length;
  expect(busy).toBe(0);
  expect(first).toBe(new Set(rows).size);
  rows.forEach((p, i) => {
    expect(firstValues[i]).toEqual([referenceRecord('/v3/lookup/phone', { Phone: String(p) }).Name.FName]);
  });
  // A recalculation buys nothing more.
  rt.recalculateConcurrently(rt.owner, 30);
  expect(rt.sandbox.transactions()).toBe(first);
  const sent = rt.http.map((h) => JSON.parse(h.body).Phone as string);
  expect(new Set(sent).size).toBe(sent.length);
  console.log(
    `1,000 at once: ${mostAtOnce(rt)} executions overlapping, ${first} transactions in one pass, ${busy} cells said the ` +
      `spreadsheet was too busy; a recalculation: ${rt.sandbox.transactions()} in all, none twice`,
  );
});

test('fallback: where LockService does not help (tryLock refused), formulas buy nothing and say so', () => {
  // The allowance is claimed under the document lock (issue 39): without it nothing can be claimed,
  // so nothing is bought (before, formulas bought without coordinating: 810 for 800).
  const rt = newRuntime({ latencyMs: 300 });
  const rows = filledDown(rt);
  rt.locksRefused = true;
  expect(rt.recalculateConcurrently(rt.owner, 30).errors).toEqual([]);
  expect(rt.sandbox.transactions()).toBe(0);
  const out = rt.values('Sheet1', 'B2:B1001');
  expect(new Set(out.map((r) => r[0]))).toEqual(
    new Set(['Not bought: the spreadsheet was too busy to check its allowance; recalculate in a moment.']),
  );
  // With the lock back, a recalculation buys each distinct input once.
  rt.locksRefused = false;
  expect(rt.recalculateConcurrently(rt.owner, 30).errors).toEqual([]);
  expect(rt.sandbox.transactions()).toBe(new Set(rows).size);
  const after = rt.values('Sheet1', 'B2:B1001');
  rows.forEach((p, i) => {
    expect(after[i]).toEqual([referenceRecord('/v3/lookup/phone', { Phone: String(p) }).Name.FName]);
  });
});
