// Must show 5: a value from the API that Sheets would read as a formula (the sandbox's reserved
// "formula" input answers =HYPERLINK(...), +1-2, -3+4, @SUM(1,2) as names and streets) lands in the
// sheet as text, whichever way it gets there: a sidebar run, or a formula frozen with "Freeze
// results". ZIP codes and phones keep their leading zeros on the way.
import { describe, expect, test } from 'vitest';
import { newRuntime, referenceRecord } from './helpers.js';
import { parseInput } from './runtime/spreadsheet-model.js';

const FORMULA_PHONE = '5550000061';
const FORMULA_LIKE = /^[=+\-@]/;

describe('the test sheet reads written strings as Sheets does', () => {
  test('a formula-like string written as is becomes a formula, even in a plain-text cell', () => {
    expect(parseInput('=HYPERLINK("http://attacker.example","click")', '@').formula).toBe(
      '=HYPERLINK("http://attacker.example","click")',
    );
    expect(parseInput('+1-2', undefined).formula).toBe('=+1-2');
    expect(parseInput('02134', undefined).value).toBe(2134);
    expect(parseInput('02134', '@').value).toBe('02134');
    expect(parseInput("'=SUM(1,2)", undefined)).toEqual({ value: '=SUM(1,2)' });
  });
});

test('sidebar: formula-like values land as text, exactly as the API sent them', () => {
  const rt = newRuntime();
  rt.type('Sheet1', 'A1:B4', [
    ['Name', 'Phone'],
    ['Mallory', Number(FORMULA_PHONE)],
    ['Zed', 5550102030],
    ['Formula again', `(555) 000-0061`],
  ]);
  rt.select('Sheet1', 'A1:B4');
  const state = rt.scriptRun(rt.owner, 'getSidebarState') as {
    selection: { sheetId: number; row: number; column: number; numRows: number; numColumns: number };
  };
  const { sheetId, row, column, numRows, numColumns } = state.selection;
  const request = {
    selection: { sheetId, row, column, numRows, numColumns },
    operation: 'phone-lookup',
    mapping: { Phone: 1 },
    columns: ['FName', 'LName', 'MName', 'Street', 'Zip', 'ValDate'],
  };
  let progress = rt.scriptRun(rt.owner, 'startRun', request, false) as { runId: string; finished: boolean };
  while (!progress.finished) progress = rt.scriptRun(rt.owner, 'runChunk', progress.runId) as typeof progress;

  const record = referenceRecord('/v3/lookup/phone', { Phone: FORMULA_PHONE });
  const expected = [record.Name.FName, record.Name.LName, record.Name.MName, record.Address.Street];
  expect(expected.filter((v) => FORMULA_LIKE.test(v)).length).toBeGreaterThanOrEqual(3);
  for (const r of [2, 4]) {
    expect(rt.values('Sheet1', `C${r}:I${r}`)[0]).toEqual([
      'ok',
      ...expected,
      record.Address.Zip,
      record.Address.ValDate,
    ]);
    for (const col of ['D', 'E', 'F', 'G', 'H', 'I'])
      expect(rt.cell('Sheet1', `${col}${r}`)?.formula).toBeUndefined();
  }
  // Dates stay the API's text, not a spreadsheet date; ZIPs stay 5 characters.
  expect(typeof rt.values('Sheet1', 'I3')[0]?.[0]).toBe('string');
  expect(String(rt.values('Sheet1', 'H3')[0]?.[0])).toMatch(/^\d{5}$/);
});

test('Freeze results: the formula and everything it spilled become values; text stays text', () => {
  const rt = newRuntime();
  rt.type('Sheet1', 'A1:A4', [['Phone'], [Number(FORMULA_PHONE)], [5550102030], ['']]);
  rt.type('Sheet1', 'B1', [['=PHONELOOKUP(A2:A4, "FName,LName,Street,Zip,Deliverable", TRUE)']]);
  rt.recalculate();
  const shown = rt.values('Sheet1', 'B1:F4');
  const record = referenceRecord('/v3/lookup/phone', { Phone: FORMULA_PHONE });
  expect(shown[1]).toEqual([
    record.Name.FName,
    record.Name.LName,
    record.Address.Street,
    record.Address.Zip,
    record.Address.Deliverable,
  ]);

  rt.select('Sheet1', 'B1');
  const spent = rt.sandbox.transactions();
  rt.run(rt.owner, 'freezeResults');
  expect(rt.spreadsheet.toasts.at(-1)).toMatch(/Froze 1 formula \(20 cells\)/);
  expect(rt.cell('Sheet1', 'B1')?.formula).toBeUndefined();
  expect(rt.values('Sheet1', 'B1:F4')).toEqual(shown);
  for (const col of ['B', 'C', 'D', 'E', 'F']) {
    for (const r of [1, 2, 3, 4]) expect(rt.cell('Sheet1', `${col}${r}`)?.formula).toBeUndefined();
  }
  // A ZIP with a leading zero, and one without, both stay text.
  const zips = rt.values('Sheet1', 'E2:E3').map((r) => r[0]);
  expect(zips.every((z) => typeof z === 'string' && /^\d{5}$/.test(z))).toBe(true);
  // Frozen cells do not ask again: recalculating finds no formula, and nothing is spent.
  expect(rt.recalculate().formulas).toBe(0);
  expect(rt.sandbox.transactions()).toBe(spent);
});

test('Freeze results leaves other formulas and cells alone, and formulas showing an error', () => {
  const rt = newRuntime({ ownerKey: false });
  rt.type('Sheet1', 'A1:A2', [['Phone'], [5550102030]]);
  rt.type('Sheet1', 'B2', [['=PHONELOOKUP(A2)']]);
  rt.type('Sheet1', 'D2', [['=SUM(1,2)']]);
  rt.recalculate();
  expect(rt.values('Sheet1', 'B2')[0]?.[0]).toBe('#ERROR!'); // no owner key yet
  rt.select('Sheet1', 'B2:D2');
  rt.run(rt.owner, 'freezeResults');
  expect(rt.cell('Sheet1', 'B2')?.formula).toBe('=PHONELOOKUP(A2)');
  expect(rt.cell('Sheet1', 'D2')?.formula).toBe('=SUM(1,2)');
  expect(rt.spreadsheet.toasts.at(-1)).toMatch(/Froze 0 formulas.*1 left as formulas/);
});
