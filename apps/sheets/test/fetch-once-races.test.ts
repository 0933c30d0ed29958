// Issue 41: fetch-once's races (src/server/formulas/fetch-once.ts), each set up in a few dozen
// executions at once so that it runs in seconds (concurrent-formulas.test.ts runs 1,000, for
// minutes; `pnpm mutate` runs this file instead). Another execution holding the document lock (an
// action of the add-on saving under it: a snippet here) decides who waits for it and how long; the
// runtime's scheduler is deterministic on the virtual clock (runtime/run-concurrently.ts: a
// released lock goes to the first waiting execution in the order of the calls), so each race
// happens the same way every time. Times below are virtual.
import { expect, test } from 'vitest';
import { newRuntime, phone, referenceRecord } from './helpers.js';
import type { Runtime } from './runtime/index.js';
import type { ConcurrentCall } from './runtime/run-concurrently.js';

const TOO_BUSY = 'Not bought: the spreadsheet was too busy to check its allowance; recalculate in a moment.';
const NOT_FINISHED = /^Not finished within the 30-second limit/;
const STILL_FETCHED = /^Still being fetched by another formula/;

function fname(p: string): string {
  return referenceRecord('/v3/lookup/phone', { Phone: p }).Name.FName;
}

/** =PHONELOOKUP(p, "FName") in a cell of its own: one execution. */
function single(rt: Runtime, p: string, startsAfterMs = 0): ConcurrentCall {
  return { user: rt.owner, mode: 'custom', fn: 'PHONELOOKUP', args: [p, 'FName'], startsAfterMs };
}

/** =PHONELOOKUP over a column of phones: one execution. */
function range(rt: Runtime, phones: readonly string[]): ConcurrentCall {
  return { user: rt.owner, mode: 'custom', fn: 'PHONELOOKUP', args: [phones.map((p) => [p]), 'FName'] };
}

/**
 * Another action holding the document lock: for each [wait, hold], it sleeps `wait`, takes the lock
 * (waiting for it up to 30 s) and keeps it `hold` ms.
 */
function holder(
  rt: Runtime,
  holds: readonly (readonly [number, number])[],
  startsAfterMs = 0,
): ConcurrentCall {
  const steps = holds
    .map(
      ([wait, hold]) =>
        `Utilities.sleep(${wait}); if (l.tryLock(30000)) { Utilities.sleep(${hold}); l.releaseLock(); }`,
    )
    .join(' ');
  return {
    user: rt.collaborator,
    mode: 'full',
    fn: '(snippet)',
    args: [],
    snippet: `var l = LockService.getDocumentLock(); ${steps}`,
    startsAfterMs,
  };
}

/** Each call's value (a formula's rows), failing the test on any whole-call error. */
function values(results: ({ value: unknown } | { error: string })[]): unknown[] {
  return results.map((r) => {
    if ('error' in r) throw new Error(`an execution failed: ${r.error}`);
    return r.value;
  });
}

/** The one cell a single-cell formula returned. */
function cellOf(value: unknown): string {
  return String((value as unknown[][])[0]?.[0]);
}

function formulaRuns(rt: Runtime) {
  return rt.executions.filter((e) => e.mode === 'custom');
}

test('30 formulas queued 19 s behind the lock claim in time: they take the round time a formula put while they waited', () => {
  // G buys phone 0 in a 300 ms round (claimed at 0.65 s) while the holder has the lock (from 0.73 s),
  // so it saves, and puts the round time it timed, only when the holder lets go for a moment at 3.2 s;
  // then the holder keeps the lock until 21.3 s. The 30 formulas started at 1.5 s and first looked
  // before there was any round time to read: assuming an untimed round (10 s) they would give up at
  // 19.6 s and say "too busy"; they read G's between two slices of their wait (at 4 s), and wait on.
  const rt = newRuntime({ latencyMs: 300 });
  const t0 = rt.clock.now();
  const distinct = Array.from({ length: 24 }, (_, i) => phone(i + 1));
  const asked = [...distinct, ...distinct.slice(0, 6)];
  const results = values(
    rt.runConcurrently(
      [
        holder(
          rt,
          [
            [0, 2_500],
            [1, 18_000],
          ],
          600,
        ),
        single(rt, phone(0)),
        ...asked.map((p) => single(rt, p, 1_500)),
      ],
      32,
    ),
  );
  const cells = results.slice(1).map(cellOf);
  expect(cells.filter((c) => c === TOO_BUSY)).toEqual([]);
  expect(cells).toEqual([phone(0), ...asked].map(fname));
  expect(rt.sandbox.transactions()).toBe(distinct.length + 1);
  // The queue was as long as the test says: G saved after the holder's first hold, and each of the 30
  // claimed after its second.
  expect((formulaRuns(rt)[0]?.ended ?? 0) - t0).toBeGreaterThan(3_000);
  const queued = formulaRuns(rt).filter((e) => e.started - t0 >= 1_500);
  expect(queued).toHaveLength(30);
  for (const e of queued) expect(e.ended - t0).toBeGreaterThan(20_000);
  for (const e of formulaRuns(rt)) expect(e.ended - e.started).toBeLessThan(30_000);
  expect(rt.errors).toEqual([]);
});

/**
 * Ten formulas queued behind a lock held 26 s while the service takes 8 s a request, with only the
 * round time the test left in the cache to go by: each must say "too busy" in time. Assuming an
 * untimed round, they give up waiting at 19.6 s, before the holder lets go; had they taken a quick
 * round time from it, they would have waited, started an 8 s round at 26 s that the platform stops
 * at 30 s, paid for and thrown away.
 */
function tooBusyInTime(rt: Runtime, bought: number): void {
  rt.extraLatencyMs = 7_700;
  const t0 = rt.clock.now();
  const phones = Array.from({ length: 10 }, (_, i) => phone(i));
  const results = values(
    rt.runConcurrently([holder(rt, [[0, 26_000]]), ...phones.map((p) => single(rt, p, 100))]),
  );
  expect(results.slice(1).map(cellOf)).toEqual(phones.map(() => TOO_BUSY));
  expect(rt.sandbox.transactions()).toBe(bought);
  const queued = formulaRuns(rt).filter((e) => e.started >= t0);
  expect(queued).toHaveLength(10);
  for (const e of queued) expect(e.ended - t0).toBeLessThan(26_000);
  expect(rt.errors).toEqual([]);
  // With the lock free again, a recalculation buys each once.
  expect(values(rt.runConcurrently(phones.map((p) => single(rt, p)))).map(cellOf)).toEqual(phones.map(fname));
  expect(rt.sandbox.transactions()).toBe(phones.length + bought);
  for (const e of formulaRuns(rt)) expect(e.ended - e.started).toBeLessThan(30_000);
}

test('behind a lock held 26 s, with a slow service and only an old round time to go by, formulas say "too busy" in time', () => {
  // A round time put 11 minutes ago (300 ms) is no guide any more: the service now takes 8 s.
  const rt = newRuntime({ latencyMs: 300 });
  rt.customFunction(rt.owner, 'PHONELOOKUP', phone(99), 'FName');
  expect(rt.documentCache.entries.get('pace:round')?.value).toMatch(/^\[300,/);
  rt.clock.advance(11 * 60_000);
  tooBusyInTime(rt, 1);
});

test("a round time in a form this version never writes (another version's, damaged) is not taken either", () => {
  for (const form of [(now: number) => ['300', now], (now: number) => [300, String(now)]]) {
    const rt = newRuntime({ latencyMs: 300 });
    const now = rt.clock.now();
    rt.documentCache.entries.set('pace:round', { value: JSON.stringify(form(now)), expires: now + 600_000 });
    tooBusyInTime(rt, 0);
  }
});

test('where LockService refuses the lock outright, formulas say "too busy" at once instead of asking again', () => {
  const rt = newRuntime({ latencyMs: 300 });
  rt.locksRefused = true;
  const phones = Array.from({ length: 5 }, (_, i) => phone(i));
  const results = values(rt.runConcurrently(phones.map((p) => single(rt, p))));
  expect(results.map(cellOf)).toEqual(phones.map(() => TOO_BUSY));
  expect(rt.sandbox.transactions()).toBe(0);
  // Well within one 2 s slice of waiting: no slice was waited.
  for (const e of formulaRuns(rt)) expect(e.ended - e.started).toBeLessThan(2_000);
});

test('a claim that gets the lock at any moment of a 2 s slice of its wait claims once and buys', () => {
  // The holder has the lock when the formula first asks (at about 0.65 s) and lets go at every 4 ms
  // step across the end of the formula's first slice: a claim that got the lock late in a slice, its
  // work then ending past the slice, must not take itself for refused and ask again.
  const p = phone(5);
  for (let hold = 2_380; hold <= 2_620; hold += 4) {
    const rt = newRuntime({ latencyMs: 300 });
    const [, out] = values(rt.runConcurrently([holder(rt, [[0, hold]]), single(rt, p)]));
    expect([hold, cellOf(out)]).toEqual([hold, fname(p)]);
    expect(rt.sandbox.transactions()).toBe(1);
  }
});

test("an input answered between a formula's first look and its claim is not bought again", () => {
  // X1 and X2 ask for the same phone and both find it free at first (the holder has the lock). X1
  // claims it first; a second holder takes the lock before X2 can claim, until X1 has saved the
  // answer and removed its mark. X2's claim then finds the answer, no mark: it must take the answer.
  const rt = newRuntime({ latencyMs: 300 });
  const p = phone(7);
  const results = values(
    rt.runConcurrently([holder(rt, [[0, 1_000]]), single(rt, p), holder(rt, [[0, 1_000]]), single(rt, p)]),
  );
  expect(cellOf(results[1])).toBe(fname(p));
  expect(cellOf(results[3])).toBe(fname(p));
  expect(rt.sandbox.transactions()).toBe(1);
  // X2 claimed after X1's save, not while X1's mark was live (it did not wait for it, 500 ms polls).
  const [x1, x2] = formulaRuns(rt);
  expect(x2?.ended).toBeGreaterThan(x1?.ended ?? Number.POSITIVE_INFINITY);
  expect(rt.errors).toEqual([]);
});

test("two range formulas saving after each round keep each other's marks: formulas waiting on both buy nothing", () => {
  // Each range formula renews the marks of what it has still to buy after every round, in mark items
  // the other's marks share; a save that wrote them back without reading the other's marks would
  // leave its inputs unmarked, and the singles (started during the second round, asking for inputs of
  // the third) would buy them too.
  const rt = newRuntime({ latencyMs: 1_000 });
  const a = Array.from({ length: 120 }, (_, i) => phone(i));
  const b = Array.from({ length: 120 }, (_, i) => phone(500 + i));
  const late = [...a.slice(-4), ...b.slice(-4)];
  const results = values(
    rt.runConcurrently([range(rt, a), range(rt, b), ...late.map((p) => single(rt, p, 1_500))]),
  );
  expect(rt.sandbox.transactions()).toBe(240);
  expect((results[0] as string[][]).map((r) => r[0])).toEqual(a.map(fname));
  expect((results[1] as string[][]).map((r) => r[0])).toEqual(b.map(fname));
  expect(results.slice(2).map(cellOf)).toEqual(late.map(fname));
  for (const e of formulaRuns(rt)) expect(e.ended - e.started).toBeLessThan(30_000);
});

test('the lock refused at the save after a round: the answers are kept all the same, and not bought again', () => {
  // X's 2 s round ends while another action holds the document lock (for 6 s from 1.1 s): X waits 3 s
  // for it, then saves its answer without it.
  const rt = newRuntime({ latencyMs: 2_000 });
  const t0 = rt.clock.now();
  const p = phone(3);
  const results = values(rt.runConcurrently([holder(rt, [[0, 6_000]], 1_000), single(rt, p)]));
  expect(cellOf(results[1])).toBe(fname(p));
  expect(rt.sandbox.transactions()).toBe(1);
  // Its save really came while the lock was held: X ended after the holder let go at 7 s.
  expect((formulaRuns(rt)[0]?.ended ?? 0) - t0).toBeGreaterThan(7_000);
  // Recalculated: the kept answer, nothing bought.
  expect(cellOf(rt.customFunction(rt.owner, 'PHONELOOKUP', p, 'FName'))).toBe(fname(p));
  expect(rt.sandbox.transactions()).toBe(1);
  expect(rt.http).toHaveLength(1);
});

test('the cache failing at the save after a round: the answer bought is shown, kept once more, never bought twice', () => {
  const rt = newRuntime({ allowance: { day: 10, month: 100 } });
  const p = phone(11);
  const message =
    'Unexpected error while getting the method or property putAll on object CacheService.Cache.';
  // The claim's putAll goes through; the save after the round, the next, fails (once).
  rt.documentCache.fault = { method: 'putAll', skip: 1, message };
  // A 200 is a purchase: the cell shows what was bought (before, the formula failed and the
  // answer was lost with it, and a recalculation bought it again).
  expect(cellOf(rt.customFunction(rt.owner, 'PHONELOOKUP', p, 'FName'))).toBe(fname(p));
  expect(rt.documentCache.fault).toBeNull();
  expect(rt.sandbox.transactions()).toBe(1);
  // The count says 1, not NaN.
  expect(rt.run(rt.owner, 'getAllowance')).toMatchObject({ spentToday: 1, left: 9 });
  // Kept by the second try: a recalculation reads it, and buys nothing.
  expect(cellOf(rt.customFunction(rt.owner, 'PHONELOOKUP', p, 'FName'))).toBe(fname(p));
  expect(rt.sandbox.transactions()).toBe(1);
  expect(rt.run(rt.owner, 'getAllowance')).toMatchObject({ spentToday: 1, left: 9 });
});

/** A range formula that buys 160 of its 200 phones (5 s a request) and gives up the last 40 at 20 s. */
function givingUp(rt: Runtime) {
  const phones = Array.from({ length: 200 }, (_, i) => phone(i));
  return { phones, last: phones.at(-1) as string, call: range(rt, phones) };
}

test('a buyer that gave up lets a waiting formula take the input over and buy it, once', () => {
  // The single started at 10 s waits on the range formula's mark; when that one stops (its time for
  // rounds is over), the mark goes, and the single has time for a round of its own.
  const rt = newRuntime({ latencyMs: 5_000 });
  const { phones, last, call } = givingUp(rt);
  const [rangeOut, singleOut] = values(rt.runConcurrently([call, single(rt, last, 10_000)]));
  const rows = (rangeOut as string[][]).map((r) => String(r[0]));
  const bought = rows.filter((r) => !NOT_FINISHED.test(r)).length;
  expect(bought).toBe(160);
  expect(rows.at(-1)).toMatch(NOT_FINISHED);
  expect(cellOf(singleOut)).toBe(fname(last));
  expect(rt.sandbox.transactions()).toBe(bought + 1);
  expect(rt.http.filter((h) => JSON.parse(h.body).Phone === last)).toHaveLength(1);
  expect(new Set(rt.http.map((h) => h.body)).size).toBe(rt.http.length);
  expect(phones).toHaveLength(200);
  for (const e of formulaRuns(rt)) expect(e.ended - e.started).toBeLessThan(30_000);
});

test('a buyer that gave up too late for a round: the waiting formula buys nothing and does not say "still being fetched"', () => {
  // Started at 1 s, the single has 8 s left when the mark goes at 20 s: less than an untimed round.
  const rt = newRuntime({ latencyMs: 5_000 });
  const { last, call } = givingUp(rt);
  const [, singleOut] = values(rt.runConcurrently([call, single(rt, last, 1_000)]));
  expect(cellOf(singleOut)).toMatch(NOT_FINISHED);
  expect(cellOf(singleOut)).not.toMatch(STILL_FETCHED);
  expect(rt.sandbox.transactions()).toBe(160);
  for (const e of formulaRuns(rt)) expect(e.ended - e.started).toBeLessThan(30_000);
});
