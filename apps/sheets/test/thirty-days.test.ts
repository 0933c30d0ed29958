// Must show 1: a month of a sheet with 1,000 single-cell formulas (800 distinct phones) and one
// 1,000-row range formula, recalculated whenever users report Sheets does it (reopening every day,
// an hourly pass, rows inserted above the data, sorting), with the document cache dropping items
// early: the answers are paid for once, because writable actions keep them in the durable store.
// Without a writable action in the 6 hours after formulas buy something, exactly those answers are
// bought again, once per recalculation after they left the cache: shown too.
import { expect, test } from 'vitest';
import { newRuntime, phone, referenceRecord } from './helpers.js';
import type { Runtime } from './runtime/index.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * A1 header; A2:A(n+1) phones (4 in 5 distinct); B: =PHONELOOKUP(A2, "FName") in every row; E1: one
 * range formula over the whole column, with a header, spilling down E.
 */
function buildSheet(rt: Runtime, n = 1000): number[] {
  rt.sheet().maxRows = n + 1;
  const rows: number[] = Array.from({ length: (n * 4) / 5 }, (_, i) => Number(phone(i)));
  for (let k = 0; k < n / 5; k++) rows.splice(5 * k + 4, 0, rows[(k * 37) % (4 * k + 4)] as number);
  rt.type('Sheet1', 'A1', [['Phone']]);
  rt.type(
    'Sheet1',
    `A2:A${n + 1}`,
    rows.map((p) => [p]),
  );
  rows.forEach((_, i) => {
    rt.type('Sheet1', `B${i + 2}`, [[`=PHONELOOKUP(A${i + 2}, "FName")`]]);
  });
  rt.type('Sheet1', 'E1', [[`=PHONELOOKUP(A2:A${n + 1}, "LName", TRUE)`]]);
  return rows;
}

/** Every formula shows the right answer for the phone in its row, wherever sorting and inserts moved it. */
function expectAnswersShown(rt: Runtime, n = 1000): void {
  const sheet = rt.sheet();
  let checked = 0;
  const range = /^=PHONELOOKUP\(A(\d+):A(\d+), "LName", TRUE\)$/.exec(sheet.cell(1, 5)?.formula ?? '');
  expect(range).not.toBeNull();
  const firstInput = Number(range?.[1]);
  for (const { row, column, formula } of sheet.formulaCells()) {
    if (column !== 2) continue;
    const input = sheet.value(row, 1);
    expect(formula).toBe(`=PHONELOOKUP(A${row}, "FName")`);
    const record = referenceRecord('/v3/lookup/phone', { Phone: String(input) });
    expect(sheet.value(row, 2)).toBe(record.Name.FName);
    // The range formula's row for input row r is 1 (header) + (r - first input row) + 1.
    expect(sheet.value(2 + row - firstInput, 5)).toBe(record.Name.LName);
    checked++;
  }
  expect(checked).toBe(n);
}

/** Moves the clock to `hour`:00 on day `day` of the test (the runtime's clock starts at 09:00 on day 0). */
function at(rt: Runtime, start: number, day: number, hour: number): void {
  const target = start - 9 * HOUR + day * DAY + hour * HOUR;
  rt.clock.advance(target - rt.clock.now());
}

/** The data rows: from the first phone down to the last. */
function dataRows(rt: Runtime): { first: number; last: number } {
  const sheet = rt.sheet();
  let first = 0;
  let last = 0;
  for (let r = 2; r <= sheet.maxRows; r++) {
    if (sheet.value(r, 1) !== '') {
      if (first === 0) first = r;
      last = r;
    }
  }
  return { first, last };
}

function recalcAll(rt: Runtime, log: string[], why: string, n = 1000): void {
  const before = rt.sandbox.transactions();
  // The single-cell formulas run as separate executions at once; so does the range formula.
  const { formulas, errors } = rt.recalculateConcurrently(rt.owner, 30);
  expect(errors).toEqual([]);
  expect(formulas).toBe(n + 1);
  log.push(`${why}: ${rt.sandbox.transactions() - before}`);
}

test('30 days, reopened daily, inserts, sorts, hourly passes, cache evicting: transactions = distinct inputs', () => {
  const rt = newRuntime({ latencyMs: 200, seed: 7 });
  const start = rt.clock.now();
  const rows = buildSheet(rt);
  const distinct = new Set(rows).size;
  const log: string[] = [];
  let random = 12345;
  const next = () => {
    random = (random * 1103515245 + 12345) % 2 ** 31;
    return random / 2 ** 31;
  };

  recalcAll(rt, log, 'day 0 09:00 formulas typed');
  // A writable action within 6 hours of the purchase: the owner opens the sidebar.
  at(rt, start, 0, 10);
  rt.run(rt.owner, 'showSidebar');
  // The first day: an hourly pass, the cache dropping items early between passes.
  for (let h = 11; h < 14; h++) {
    at(rt, start, 0, h);
    rt.documentCache.evictEarly(0.4, next);
    recalcAll(rt, log, `day 0 ${h}:00 hourly pass`);
  }
  for (let day = 1; day < 30; day++) {
    at(rt, start, day, 9);
    rt.open(rt.collaborator, 'LIMITED');
    recalcAll(rt, log, `day ${day} reopened`);
    if (day === 3 || day === 17) {
      at(rt, start, day, 13);
      const { first } = dataRows(rt);
      rt.sheet().insertRowsBefore(first, 2);
      recalcAll(rt, log, `day ${day} rows inserted above the data`);
    }
    if (day === 5 || day === 24) {
      at(rt, start, day, 13);
      rt.documentCache.evictEarly(0.5, next);
      const { first, last } = dataRows(rt);
      rt.sheet().sortRows(first, last, 1, day % 2 === 0);
      recalcAll(rt, log, `day ${day} sorted`);
    }
  }
  expectAnswersShown(rt);
  const spent = rt.sandbox.transactions();
  const recalcs = log.length;
  console.log(
    `30 days, ${recalcs} recalculations of 1,001 formulas (1,000 single-cell + one 1,000-row range), cache evicting ` +
      `(${rt.documentCache.evictions} items dropped early): ${spent} transactions for ${distinct} distinct inputs. ` +
      `Store: ${rt.sheet('_enrich_answers').lastColumn()} columns × 256 rows, hidden: ${rt.sheet('_enrich_answers').hidden}`,
  );
  expect(spent).toBe(distinct);
  expect(rt.sheet('_enrich_answers').hidden).toBe(true);
}, 600_000); // about 38 recalculations of 1,001 executions each: a few minutes of real time

test('without a writable action after a purchase, exactly those answers are bought again, once per recalculation after they leave the cache', () => {
  // A smaller sheet (100 single-cell formulas and a 100-row range formula) keeps this month quick.
  const n = 100;
  const rt = newRuntime({ latencyMs: 200, seed: 8 });
  const start = rt.clock.now();
  const rows = buildSheet(rt, n);
  const log: string[] = [];
  recalcAll(rt, log, 'day 0 formulas typed', n);
  at(rt, start, 0, 10);
  rt.run(rt.owner, 'showSidebar'); // keeps the first answers
  // From now on the platform refuses simple triggers any write, and nobody uses the menu or sidebar.
  rt.limitedMayWrite = false;
  // Day 10: 10 rows get new phones; the formulas buy those 10 answers, and nothing keeps them.
  at(rt, start, 10, 9);
  const changed = Array.from({ length: 10 }, (_, i) => Number(phone(5000 + i)));
  changed.forEach((p, i) => {
    rt.type('Sheet1', `A${2 + i * 10}`, [[p]]);
  });
  recalcAll(rt, log, 'day 10 new inputs', n);
  let laterReopens = 0;
  for (let day = 10; day < 30; day++) {
    if (day > 10) {
      at(rt, start, day, 9);
      rt.open(rt.collaborator, 'LIMITED'); // refused: keeps nothing, breaks nothing
      recalcAll(rt, log, `day ${day} reopened`, n);
      laterReopens++;
    }
    // Within 6 hours of the reopen: the cache still has the answers; nothing is paid.
    at(rt, start, day, 13);
    rt.sheet().sortRows(dataRows(rt).first, dataRows(rt).last, 1);
    recalcAll(rt, log, `day ${day} sorted`, n);
  }
  expectAnswersShown(rt, n);
  const requestsFor = (p: number) => rt.http.filter((h) => JSON.parse(h.body).Phone === String(p)).length;
  // Kept answers: bought once, in the whole month. New answers never kept: once, then once per reopen.
  for (const p of new Set(rows)) expect(requestsFor(p)).toBe(1);
  for (const p of changed) expect(requestsFor(p)).toBe(1 + laterReopens);
  const extra = rt.sandbox.transactions() - new Set([...rows, ...changed]).size;
  expect(extra).toBe(changed.length * laterReopens);

  console.log(
    `no writable action after day 10: the ${changed.length} answers bought then were bought again at each of ${laterReopens} ` +
      `daily reopens (${extra} extra transactions); the ${new Set(rows).size} answers kept on day 0 were never bought again`,
  );
});
