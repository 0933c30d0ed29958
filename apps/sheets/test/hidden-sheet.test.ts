// The durable answer store (a hidden sheet): what keeps answers there, what reads them, freshness,
// the simple triggers and their refusal, Freeze results in the whole spreadsheet, and must show 3:
// the size and read time of 20,000 kept answers, from the runtime's cost model of getValues.
import { gunzipSync, gzipSync } from 'node:zlib';
import { expect, test } from 'vitest';
import { newRuntime, phone } from './helpers.js';
import type { Runtime } from './runtime/index.js';
import { SPREADSHEET_COSTS } from './runtime/spreadsheet-costs.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const STORE = '_enrich_answers';

function phones(from: number, count: number): number[][] {
  return Array.from({ length: count }, (_, i) => [Number(phone(from + i))]);
}

function storeText(rt: Runtime): string {
  const sheet = rt.sheet(STORE);
  return [...sheet.cells.values()].map((c) => String(c.value)).join('\n');
}

test('answers bought by formulas are kept by one click, cost nothing to keep, and serve recalculations for 30 days', () => {
  const rt = newRuntime();
  const rows = phones(0, 50);
  rt.customFunction(rt.owner, 'PHONELOOKUP', rows, 'FName');
  expect(rt.sandbox.transactions()).toBe(50);

  const state = rt.scriptRun(rt.owner, 'getSidebarState') as { answers: { unkept: number; days: number } };
  expect(state.answers).toEqual({ unkept: 50, days: 30 });
  const kept = rt.scriptRun(rt.owner, 'keepAnswers') as { kept: number; unkept: number };
  expect(kept).toMatchObject({ kept: 50, unkept: 0 });
  expect(rt.sandbox.transactions()).toBe(50);

  // Hidden, and no input in the clear: keys are digests.
  expect(rt.sheet(STORE).hidden).toBe(true);
  const text = storeText(rt);
  for (const [p] of rows) expect(text).not.toContain(String(p));
  // The user's selection is where it was (inserting a sheet activates it; the add-on restores it).
  expect(rt.spreadsheet.active?.sheetId).not.toBe(rt.sheet(STORE).id);

  // The cache is gone after 6 hours: the store answers, and warms the cache again.
  rt.clock.advance(7 * HOUR);
  expect(rt.customFunction(rt.owner, 'PHONELOOKUP', rows, 'FName')).toEqual(
    rt.customFunction(rt.owner, 'PHONELOOKUP', rows, 'FName'),
  );
  expect(rt.sandbox.transactions()).toBe(50);
  // 30 days after they were paid for, the answers are too old: bought again.
  rt.clock.advance(30 * DAY - 7 * HOUR);
  rt.customFunction(rt.owner, 'PHONELOOKUP', rows, 'FName');
  expect(rt.sandbox.transactions()).toBe(100);
  // A longer freshness is the setting of the key's owner (whoever saves it; formulas read the owner's).
  rt.scriptRun(rt.owner, 'saveSettings', { answerDays: 90 });
  rt.scriptRun(rt.owner, 'keepAnswers');
  rt.clock.advance(60 * DAY);
  rt.customFunction(rt.owner, 'PHONELOOKUP', rows, 'FName');
  expect(rt.sandbox.transactions()).toBe(100);
  expect(() => rt.scriptRun(rt.owner, 'saveSettings', { answerDays: 0 })).toThrow(/1 to 365 days/);
});

test('a kept record without the parts every record has (extra, mismatches, raw) is not trusted: bought again', () => {
  const rt = newRuntime();
  const rows = phones(0, 10);
  rt.customFunction(rt.owner, 'PHONELOOKUP', rows, 'FName');
  rt.scriptRun(rt.owner, 'keepAnswers');
  // Half of the kept records lose their extra, as a hand edit or another writer might leave them.
  let changed = 0;
  for (const cell of rt.sheet(STORE).cells.values()) {
    const text = String(cell.value);
    if (!text.startsWith('z')) continue;
    const answers = JSON.parse(gunzipSync(Buffer.from(text.slice(1), 'base64')).toString('utf8')) as Record<
      string,
      [string, { extra?: unknown }]
    >;
    for (const [, outcome] of Object.values(answers))
      if (changed < 5) {
        delete outcome.extra;
        changed++;
      }
    cell.value = `z${gzipSync(JSON.stringify(answers)).toString('base64')}`;
  }
  expect(changed).toBe(5);
  rt.clock.advance(7 * HOUR);
  rt.customFunction(rt.owner, 'PHONELOOKUP', rows, 'FName');
  expect(rt.sandbox.transactions()).toBe(15);
});

test('simple triggers keep answers in AuthMode.LIMITED; refused or in NONE, they do nothing and break nothing', () => {
  const rt = newRuntime();
  rt.customFunction(rt.owner, 'PHONELOOKUP', phones(0, 20), 'FName');
  // NONE (the add-on not yet used in this document): menus only.
  rt.open(rt.collaborator, 'NONE');
  expect(rt.spreadsheet.sheets.some((s) => s.name === STORE)).toBe(false);
  // LIMITED, but the platform refuses the write: no error, nothing kept, still counted as unkept.
  rt.limitedMayWrite = false;
  rt.edit(rt.collaborator);
  rt.open(rt.collaborator, 'LIMITED');
  expect(rt.errors).toEqual([]);
  expect((rt.scriptRun(rt.owner, 'getSidebarState') as { answers: { unkept: number } }).answers.unkept).toBe(
    20,
  );
  // LIMITED and allowed (as documented): an edit keeps them.
  rt.limitedMayWrite = true;
  rt.edit(rt.collaborator);
  expect((rt.scriptRun(rt.owner, 'getSidebarState') as { answers: { unkept: number } }).answers.unkept).toBe(
    0,
  );
  rt.clock.advance(7 * HOUR);
  rt.customFunction(rt.owner, 'PHONELOOKUP', phones(0, 20), 'FName');
  expect(rt.sandbox.transactions()).toBe(20);
  // Nothing new to keep: an edit does one cache read and nothing else.
  const before = rt.sheet(STORE).cells.size;
  rt.edit(rt.collaborator);
  expect(rt.sheet(STORE).cells.size).toBe(before);
});

test('Freeze results in the whole spreadsheet: every add-on formula on every sheet becomes values; the store stays', () => {
  const rt = newRuntime();
  const other = rt.spreadsheet.addSheet('Leads');
  rt.type('Sheet1', 'A1:A3', phones(0, 3));
  rt.type('Sheet1', 'B1', [['=PHONELOOKUP(A1:A3, "FName,LName")']]);
  other.type(1, 1, Number(phone(10)));
  other.type(1, 2, `=PHONELOOKUP(A1, "City")`);
  expect(rt.recalculate().errors).toEqual([]);
  rt.scriptRun(rt.owner, 'keepAnswers');
  const shown = rt.values('Sheet1', 'B1:C3');
  const report = rt.scriptRun(rt.owner, 'freezeAllResults') as { formulas: number; cells: number };
  expect(report).toMatchObject({ formulas: 2, cells: 7 });
  expect(rt.sheet().formulaCells()).toEqual([]);
  expect(other.formulaCells()).toEqual([]);
  expect(rt.values('Sheet1', 'B1:C3')).toEqual(shown);
  expect(rt.sheet(STORE).cells.size).toBeGreaterThan(0);
});

test('must show 3: 20,000 kept answers, their size, and the time a formula takes to read them', () => {
  const rt = newRuntime();
  const total = 20_000;
  // Bought in 4 range formulas of 5,000 rows, each kept by a writable action (as a user would).
  for (let part = 0; part < 4; part++) {
    const rows = phones(part * 5000, 5000);
    let out = rt.customFunction(rt.owner, 'PHONELOOKUP', rows, 'FName') as string[][];
    while (out.some((r) => String(r[0]).startsWith('Not finished'))) {
      out = rt.customFunction(rt.owner, 'PHONELOOKUP', rows, 'FName') as string[][];
    }
    rt.scriptRun(rt.owner, 'keepAnswers');
  }
  expect(rt.sandbox.transactions()).toBe(total);
  // Keeping the last 5,000 (reading and rewriting the whole store) fits a simple trigger's 30 s.
  const keepMs = lastMs(rt, 'keepAnswers');
  expect(keepMs).toBeLessThan(30_000);

  const sheet = rt.sheet(STORE);
  const cells = [...sheet.cells.values()].filter((c) => c.value !== '');
  const chars = cells.reduce((n, c) => n + String(c.value).length, 0);
  const longest = Math.max(...cells.map((c) => String(c.value).length));
  expect(longest).toBeLessThanOrEqual(50_000);
  // The same answers as plain JSON: what a formula would read if they compressed not at all.
  const json = cells.reduce(
    (n, c) => n + gunzipSync(Buffer.from(String(c.value).slice(1), 'base64')).length,
    0,
  );
  const jsonReadMs = Math.round((json / 1000) * SPREADSHEET_COSTS.perKcharRead);
  expect(jsonReadMs).toBeLessThan(30_000);

  // Cold cache (7 hours later): a range formula needing all 20,000 answers reads the whole store.
  rt.clock.advance(7 * HOUR);
  const all = phones(0, total);
  const t0 = rt.clock.now();
  rt.customFunction(rt.owner, 'PHONELOOKUP', all, 'FName');
  const rangeMs = rt.clock.now() - t0;
  // A single-cell formula reads the one row of its answer.
  rt.documentCache.evictEarly(1, Math.random);
  const t1 = rt.clock.now();
  rt.customFunction(rt.owner, 'PHONELOOKUP', Number(phone(12345)), 'FName');
  const singleMs = rt.clock.now() - t1;
  expect(rt.sandbox.transactions()).toBe(total);
  expect(rangeMs).toBeLessThan(15_000);

  // One new answer the next day (20,000 fetches were the day's URL Fetch quota): keeping it reads
  // and writes only its row.
  rt.clock.advance(DAY);
  rt.customFunction(rt.owner, 'PHONELOOKUP', Number(phone(total)), 'FName');
  expect(rt.sandbox.transactions()).toBe(total + 1);
  const writesBefore = new Map([...sheet.cells].map(([key, cell]) => [key, cell.writes]));
  rt.scriptRun(rt.owner, 'keepAnswers');
  const oneKeepMs = lastMs(rt, 'keepAnswers');
  const rewritten = [...sheet.cells.entries()].filter(
    ([key, cell]) => cell.writes !== (writesBefore.get(key) ?? 0),
  );
  // Cells are keyed row × 100,000 + column (runtime/spreadsheet-model.ts): only the answer's row.
  expect(new Set(rewritten.map(([key]) => Math.floor(key / 100_000))).size).toBe(1);
  // A dozen Spreadsheet calls at most (the whole block would cost its characters on top).
  expect(oneKeepMs).toBeLessThan(12 * SPREADSHEET_COSTS.call);

  console.log(
    `store of ${total} answers: ${sheet.lastColumn()} columns × 256 rows, ${cells.length} cells, ` +
      `${(chars / 1e6).toFixed(2)} M characters (${Math.round(chars / total)} per answer; longest cell ${longest}); ` +
      `cold read by a 20,000-row formula: ${rangeMs} ms of 30,000; by a single-cell formula: ${singleMs} ms ` +
      `(model: ${SPREADSHEET_COSTS.call} ms a call + ${SPREADSHEET_COSTS.perKcharRead} ms per 1,000 characters read). ` +
      `Uncompressed the answers are ${(json / 1e6).toFixed(2)} M characters (${Math.round(json / total)} per answer): ` +
      `reading that much would take ${jsonReadMs} ms. Keeping 5,000 new answers into a store of 15,000: ${keepMs} ms; ` +
      `keeping one more: ${oneKeepMs} ms`,
  );
});

/** How long the last execution of `fn` took, on the virtual clock. */
function lastMs(rt: Runtime, fn: string): number {
  const last = rt.executions.filter((e) => e.fn === fn).at(-1);
  return (last?.ended ?? 0) - (last?.started ?? 0);
}
