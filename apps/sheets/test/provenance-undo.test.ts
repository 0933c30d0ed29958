// Issue 39, items 3 and 4. Every row a sidebar run writes carries where its answer came from, as a
// note on its Status cell (bought on a date, reused from a kept answer, or a sandbox or test
// service); the sidebar tells it for the selected cell, a formula's cells included; Freeze results
// keeps it. Undo the last run puts its cells back as they were (values, formats, notes), sends
// nothing, and the answers stay kept: running it again is free.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { newRuntime, phone } from './helpers.js';
import type { Runtime } from './runtime/index.js';

interface Progress {
  runId: string;
  finished: boolean;
  counts: { spent: number };
}

function runAll(rt: Runtime, request: unknown, overwrite = false): Progress {
  const plan = rt.scriptRun(rt.owner, 'planRun', request) as { transactions: number };
  let progress = rt.scriptRun(rt.owner, 'startRun', request, overwrite, plan.transactions) as Progress;
  while (!progress.finished) progress = rt.scriptRun(rt.owner, 'runChunk', progress.runId) as Progress;
  return progress;
}

const request = (rt: Runtime, rows: number) => ({
  selection: { sheetId: rt.sheet().id, row: 1, column: 1, numRows: rows + 1, numColumns: 2 },
  operation: 'phone-lookup',
  mapping: { Phone: 1 },
  columns: ['FName', 'City'],
  targetColumn: 4,
});

const describe = (rt: Runtime, a1: string) => {
  rt.select('Sheet1', a1);
  return (rt.scriptRun(rt.owner, 'describeProvenance') as { text: string }).text;
};

test('a run writes where each answer came from; a repeat in a later chunk carries it; a second run says reused', () => {
  const rt = newRuntime();
  rt.sheet().maxRows = 700;
  rt.type('Sheet1', 'A1:B1', [['Name', 'Phone']]);
  // 600 rows, 500 distinct phones: the last 100 repeat the first 100 (a later chunk copies their
  // rows); row 5 is invalid, and its phone comes again at row 505.
  const rows = Array.from({ length: 600 }, (_, i) => [`Lead ${i}`, i === 3 ? '12' : phone(i % 500)]);
  rt.type('Sheet1', 'A2:B601', rows);
  rt.type('Sheet1', 'G1', [['a note is not touched outside the target']]);
  const first = runAll(rt, request(rt, 600));
  expect(first.counts.spent).toBe(500);
  const note = (a1: string) => rt.cell('Sheet1', a1)?.note ?? '';
  expect(note('D2')).toMatch(/^Enrich: Phone Lookup, bought 2026-11-22 09:\d\d UTC\.$/);
  expect(note('D5')).toBe(''); // the invalid row has no answer
  expect(note('D1')).toBe(''); // nor the header
  expect(note('D502')).toBe(note('D2')); // row 502 repeats row 2, from an earlier chunk
  // The sidebar, for any cell of a written row.
  expect(describe(rt, 'F2')).toBe(note('D2'));
  expect(describe(rt, 'B2')).toBe(
    'No Enrich answer here: the cell was not written by a run, the automation or an Enrich formula.',
  );

  rt.clock.advance(3_600_000);
  const second = runAll(rt, request(rt, 600), true);
  expect(second.counts.spent).toBe(0);
  expect(note('D2')).toMatch(
    /^Enrich: Phone Lookup, reused from a kept answer \(bought 2026-11-22 09:\d\d UTC; not paid again\)\.$/,
  );
  expect(rt.sandbox.transactions()).toBe(500);
});

test("a formula's cells: the sidebar tells where each row's answer came from, and Freeze results keeps it as a note", () => {
  const rt = newRuntime();
  rt.type('Sheet1', 'A1:A4', [['Phone'], [phone(1)], [phone(2)], ['n/a']]);
  rt.type('Sheet1', 'B1', [['=PHONELOOKUP(A2:A4, "FName,City", TRUE)']]);
  rt.clock.advance(60_000);
  expect(rt.recalculate().errors).toEqual([]);
  // A cell the formula's results fill (C3: row 2's City), found from the formula above-left of it.
  const bought = /^Enrich: Phone Lookup, bought 2026-11-22 09:01 UTC\.$/;
  expect(describe(rt, 'C3')).toMatch(bought);
  expect(describe(rt, 'B4')).toBe(
    'Enrich: no kept answer for this row (not bought yet, or bought under other settings).',
  );
  rt.select('Sheet1', 'B1');
  rt.run(rt.owner, 'freezeResults');
  expect(rt.cell('Sheet1', 'B1')?.formula).toBeUndefined();
  expect(rt.cell('Sheet1', 'B2')?.note).toMatch(bought);
  expect(rt.cell('Sheet1', 'B3')?.note).toMatch(bought);
  expect(rt.cell('Sheet1', 'B4')?.note).toBeUndefined();
  expect(rt.cell('Sheet1', 'B1')?.note).toBeUndefined();
  expect(describe(rt, 'C3')).toMatch(bought);
});

test('an answer from a sandbox or test service says so', () => {
  // A second add-on built with a test service on its URL allow-list (as SHEETS_EXTRA_URLS does).
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const dist = mkdtempSync(join(tmpdir(), 'sheets-sandbox-dist-'));
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], {
    cwd: root,
    env: { ...process.env, SHEETS_DIST: dist, SHEETS_EXTRA_URLS: 'https://sandbox.example.org/' },
    stdio: 'ignore',
  });
  const rt = newRuntime({ distDir: dist });
  rt.run(rt.owner, 'saveSettings', {
    baseUrl: 'https://sandbox.example.org',
    baseUrlV3: 'https://sandbox.example.org',
  });
  rt.type('Sheet1', 'A1:B2', [
    ['Name', 'Phone'],
    ['Ada', phone(1)],
  ]);
  runAll(rt, request(rt, 1));
  expect(rt.http[0]?.url).toBe('https://sandbox.example.org/v3/lookup/phone');
  expect(rt.cell('Sheet1', 'D2')?.note).toMatch(
    /^Enrich: Phone Lookup, bought 2026-11-22 09:\d\d UTC\. Sandbox or test service https:\/\/sandbox\.example\.org, not the provider's: its data may be synthetic\.$/,
  );
});

test('undo the last run: the cells as they were (values, formats, notes), nothing sent, a rerun free', () => {
  const rt = newRuntime();
  rt.sheet().maxRows = 400;
  rt.type('Sheet1', 'A1:B1', [['Name', 'Phone']]);
  rt.type(
    'Sheet1',
    'A2:B301',
    Array.from({ length: 300 }, (_, i) => [`Lead ${i}`, phone(i)]),
  );
  // Before the run: a value, a date-formatted cell, a note and a formula in the target.
  rt.type('Sheet1', 'D10:E10', [['keep me', '=A10']]);
  const before = rt.sheet();
  before.ensure(20, 5).format = 'yyyy-mm-dd';
  before.ensure(30, 4).note = 'my own note';
  const snapshot = () =>
    [1, 10, 20, 30, 301].map((r) =>
      [4, 5, 6].map((c) => {
        const cell = before.cell(r, c);
        return [cell?.value ?? '', cell?.formula ?? '', cell?.format ?? '', cell?.note ?? ''];
      }),
    );
  const was = snapshot();
  const first = runAll(rt, request(rt, 300), true);
  expect(first.counts.spent).toBe(300);
  expect(rt.values('Sheet1', 'D2:D2')).toEqual([['ok']]);
  const sent = rt.http.length;

  const undone = rt.scriptRun(rt.owner, 'undoLastRun') as { range: string };
  expect(undone.range).toBe('Sheet1!D1:F301');
  expect(snapshot()).toEqual(was);
  expect(rt.http).toHaveLength(sent);
  expect(rt.spreadsheet.sheets.map((s) => s.name)).toEqual(['Sheet1', '_enrich_answers']);
  expect(() => rt.scriptRun(rt.owner, 'undoLastRun')).toThrow(
    'There is no sidebar run of yours to undo in this spreadsheet.',
  );
  // The answers stayed kept: the same run again costs nothing.
  const again = runAll(rt, request(rt, 300), true);
  expect(again.counts.spent).toBe(0);
  expect(rt.sandbox.transactions()).toBe(300);
});
