// Issue 24: what this user has spent in this spreadsheet this month, from the record the add-on
// keeps in the user's properties (src/server/run/spend.ts). It grows by exactly the transactions the
// service counted for the sidebar's runs, by nothing for answers taken from the cache, costs no
// property write more than the checkpoint already did, holds no personal data, and starts again
// each UTC month. Formulas' spend is not in it (custom functions cannot set properties).
import { describe, expect, test } from 'vitest';
import { COLLABORATOR_KEY, newRuntime, OWNER_KEY, phone } from './helpers.js';
import type { Runtime, User } from './runtime/index.js';
import { COLUMNS, type Progress, request, setUp } from './sidebar-run-helpers.js';

interface SpendInfo {
  month: string;
  transactions: number;
  parts: { label: string; transactions: number }[];
}
type RunProgress = Progress & { spend: SpendInfo | null };

const RECORD = 'enrich.spend.1SpreadsheetTestId';

function spendShown(rt: Runtime, user: User): SpendInfo {
  return (rt.scriptRun(user, 'getSidebarState') as { spend: SpendInfo }).spend;
}

/** Runs the request to its end; the progress of each call, and the property writes it took. */
function runAll(rt: Runtime, user: User, req: unknown, overwrite = false) {
  const store = rt.userProperties(user);
  const writesBefore = store.writeCalls;
  const steps = [rt.scriptRun(user, 'startRun', req, overwrite) as RunProgress];
  while (!steps.at(-1)?.finished)
    steps.push(rt.scriptRun(user, 'runChunk', steps.at(-1)?.runId) as RunProgress);
  return { steps, last: steps.at(-1) as RunProgress, writes: store.writeCalls - writesBefore };
}

describe("this user's spend in this spreadsheet this month", () => {
  test('grows by exactly what a run paid; a re-run answered from the cache adds 0, and writes nothing', () => {
    const rt = newRuntime({ latencyMs: 20 });
    const user = rt.owner;
    // 1,200 rows, 900 distinct phones: a 250-row chunk, then larger ones (chunk-size.ts).
    const rows = Array.from({ length: 1200 }, (_, i) => [`Lead ${i}`, phone(i % 900)]);
    setUp(rt, rows);
    expect(spendShown(rt, user)).toEqual({ month: '2026-11', transactions: 0, parts: [] });

    const first = runAll(rt, user, request(rt, user));
    const paid = rt.sandbox.transactions(OWNER_KEY);
    expect(paid).toBe(900);
    expect(first.last.counts.spent).toBe(paid);
    expect(first.last.spend).toEqual({
      month: '2026-11',
      transactions: paid,
      parts: [{ label: 'Phone Lookup', transactions: paid }],
    });
    expect(spendShown(rt, user).transactions).toBe(paid);
    // Each chunk that spent reported the total so far, which only grows.
    const totals = first.steps.flatMap((s) => (s.spend ? [s.spend.transactions] : []));
    expect(totals.length).toBeGreaterThanOrEqual(2);
    expect(totals).toEqual([...totals].sort((a, b) => a - b));
    // No property write more than the checkpoint's own: one at the start, one per chunk after
    // writing, and one before writing in a chunk that paid (its checkpoint and the spend record in
    // one setProperties call). Never one per row.
    const chunks = first.steps.length - 1;
    const paying = first.steps.filter(
      (s, i) => i > 0 && s.counts.spent > (first.steps[i - 1]?.counts.spent ?? 0),
    );
    expect(chunks).toBeGreaterThanOrEqual(2);
    expect(paying.length).toBe(totals.length);
    expect(first.writes).toBe(1 + chunks + paying.length);

    // The same range again: every answer from the document cache, nothing paid, the record untouched.
    const before = rt.userProperties(user).values.get(RECORD);
    const again = runAll(rt, user, request(rt, user), true);
    expect(rt.sandbox.transactions(OWNER_KEY)).toBe(paid);
    expect(again.last.counts.spent).toBe(0);
    expect(again.last.spend?.transactions).toBe(paid);
    expect(rt.userProperties(user).values.get(RECORD)).toBe(before);
    expect(again.writes).toBe(again.steps.length); // checkpoints only: the start's and one per chunk

    // What is kept: period, service origin, operation, count. No input, answer or key.
    const record = JSON.parse(before as string);
    expect(record).toEqual({
      v: 1,
      rows: [
        {
          period: '2026-11',
          origin: 'https://testapi.tdg1.io',
          operation: 'phone-lookup',
          transactions: 900,
        },
      ],
    });
    console.log(
      `spend record after 2 runs of 1,200 rows (${chunks} chunks each; property writes ${first.writes}, then ${again.writes}): ${before}`,
    );
  });

  test('another operation adds its part; each user has their own; formulas are not included', () => {
    const rt = newRuntime();
    rt.run(rt.collaborator, 'saveSettings', { apiKey: COLLABORATOR_KEY });
    setUp(
      rt,
      Array.from({ length: 40 }, (_, i) => [`Lead ${i}`, phone(i)]),
    );
    runAll(rt, rt.owner, request(rt, rt.owner));
    rt.type('Sheet1', 'H1:H31', [
      ['Email'],
      ...Array.from({ length: 30 }, (_, i) => [`lead${i}@example.com`]),
    ]);
    rt.select('Sheet1', 'H1:H31');
    const state = rt.scriptRun(rt.owner, 'getSidebarState') as {
      selection: { sheetId: number; row: number; column: number; numRows: number; numColumns: number };
    };
    const { sheetId, row, column, numRows, numColumns } = state.selection;
    const emailRun = {
      selection: { sheetId, row, column, numRows, numColumns },
      operation: 'email-verify',
      mapping: { Email: 0 },
      columns: ['Result'],
    };
    runAll(rt, rt.owner, emailRun);
    expect(spendShown(rt, rt.owner)).toEqual({
      month: '2026-11',
      transactions: 70,
      parts: [
        { label: 'Phone Lookup', transactions: 40 },
        { label: 'Email Verify', transactions: 30 },
      ],
    });

    // The collaborator's runs are theirs; formulas (the owner's key) are in nobody's record.
    expect(spendShown(rt, rt.collaborator).transactions).toBe(0);
    rt.select('Sheet1', 'A1:B41');
    runAll(rt, rt.collaborator, { ...request(rt, rt.collaborator), columns: COLUMNS }, true);
    expect(spendShown(rt, rt.collaborator).transactions).toBe(0); // all 40 cached by the owner's run
    rt.customFunction(rt.owner, 'PHONELOOKUP', [[phone(500)], [phone(501)]]);
    expect(rt.sandbox.transactions()).toBe(72);
    expect(spendShown(rt, rt.owner).transactions).toBe(70);
  });

  test('a new UTC month starts from nothing; a damaged record is not fatal', () => {
    const rt = newRuntime();
    const user = rt.owner;
    setUp(
      rt,
      Array.from({ length: 20 }, (_, i) => [`Lead ${i}`, phone(i)]),
    );
    runAll(rt, user, request(rt, user));
    expect(spendShown(rt, user).transactions).toBe(20);

    // The clock starts on 22 November 2026, 09:00 UTC: nine days on is December.
    rt.clock.advance(9 * 86_400_000);
    expect(spendShown(rt, user)).toEqual({ month: '2026-12', transactions: 0, parts: [] });
    rt.type(
      'Sheet1',
      'B2:B6',
      Array.from({ length: 5 }, (_, i) => [phone(100 + i)]),
    );
    runAll(rt, user, request(rt, user), true);
    expect(spendShown(rt, user).transactions).toBe(5);
    expect(JSON.parse(rt.userProperties(user).values.get(RECORD) as string).rows).toEqual([
      { period: '2026-12', origin: 'https://testapi.tdg1.io', operation: 'phone-lookup', transactions: 5 },
    ]);

    rt.userProperties(user).values.set(RECORD, '{"v":1,"rows":[{"torn');
    expect(spendShown(rt, user).transactions).toBe(0);
    rt.type('Sheet1', 'B7:B8', [[phone(200)], [phone(201)]]);
    runAll(rt, user, request(rt, user), true);
    expect(spendShown(rt, user).transactions).toBe(2);
  });
});
