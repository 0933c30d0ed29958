// Issue 24: when a sidebar run ends, its breakdown (core's, shown as bars) counts exactly what the
// run wrote. Each value's count equals the number of ok rows of the written range whose cell holds
// that value (read here from the sheet, independently of the add-on), score columns in bands; the
// match rate equals the run's own counts; coded columns not chosen are named, not counted.
import { describe, expect, test } from 'vitest';
import { newRuntime, phone } from './helpers.js';
import type { Runtime, User } from './runtime/index.js';
import { seeded } from './sidebar-run-helpers.js';

interface Value {
  value: string;
  label: string;
  count: number;
  share: number;
  meaning?: string;
  unexpected?: true;
}
interface Field {
  column: string;
  countedAs: 'values' | 'bands';
  values: Value[];
  other?: { distinct: number; count: number; share: number };
}
interface Breakdown {
  operation: string;
  rows: number;
  answered: number;
  outcomes: { outcome: string; label: string; count: number; share: number }[];
  fields: Field[];
  notWritten: string[];
  emptyRows: number;
}
interface Progress {
  runId: string;
  finished: boolean;
  counts: Record<string, number>;
  breakdown: Breakdown | null;
}
interface State {
  selection: { sheetId: number; row: number; column: number; numRows: number; numColumns: number };
  run: Progress | null;
}

const HOSTILE_CODE = '<img src=x onerror="window.__xss=1">';

/** Rows of [name, phone, last name] with repeats, empty and invalid rows, a no match and a 500. */
function tcpaRows(count: number): (string | number)[][] {
  const random = seeded(2024);
  const seen: string[] = [];
  return Array.from({ length: count }, (_, i) => {
    const r = random();
    if (i === 77) return [`Lead ${i}`, '5550000500', 'Lee'];
    if (r < 0.05) return [`Lead ${i}`, '', ''];
    if (r < 0.1) return [`Lead ${i}`, '555-12', 'Lee'];
    if (r < 0.12) return [`Lead ${i}`, '5550000204', 'Lee'];
    if (r < 0.35 && seen.length > 0)
      return [`Lead ${i}`, seen[Math.floor(random() * seen.length)] as string, 'Lee'];
    const p = phone(i);
    seen.push(p);
    return [`Lead ${i}`, i % 3 === 0 ? Number(p) : p, 'Lee'];
  });
}

/** The service answers one phone with values no description has: one markup, one formula-like. */
function answerOneHostile(rt: Runtime, hostilePhone: string): void {
  const handle = rt.sandbox.handle.bind(rt.sandbox);
  rt.sandbox.handle = (request) => {
    const answer = handle(request);
    if (answer.status !== 200 || !request.body?.includes(hostilePhone)) return answer;
    return { ...answer, body: JSON.stringify({ verification_code: HOSTILE_CODE, phone_type: '=1+1' }) };
  };
}

function selectionRequest(rt: Runtime, user: User, operation: string, columns: string[]) {
  const state = rt.scriptRun(user, 'getSidebarState') as State & {
    selection: { suggestions: Record<string, { fields: Record<string, number> }> };
  };
  const { sheetId, row, column, numRows, numColumns } = state.selection;
  return {
    selection: { sheetId, row, column, numRows, numColumns },
    operation,
    mapping: state.selection.suggestions[operation]?.fields,
    columns,
  };
}

/** Counts of each cell's text among the ok rows, read straight from the sheet. */
function countsInSheet(out: unknown[][], column: number, key: (text: string) => string = (t) => t) {
  const counts = new Map<string, number>();
  for (const row of out) {
    if (!String(row[0]).startsWith('ok')) continue;
    const value = key(String(row[column]));
    counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return counts;
}

function countsInBreakdown(field: Field | undefined): Map<string, number> {
  expect(field?.other).toBeUndefined();
  return new Map((field?.values ?? []).map((v) => [v.value, v.count]));
}

describe('the breakdown of a finished sidebar run', () => {
  test('TCPA Verify, interrupted and resumed: each value counted as often as the written cells hold it', () => {
    const rt = newRuntime({ latencyMs: 50 });
    const user = rt.owner;
    const rows = tcpaRows(700);
    answerOneHostile(rt, phone(3));
    rt.sheet().maxRows = rows.length + 50;
    rt.type('Sheet1', 'A1:C1', [['Name', 'Phone', 'Last name']]);
    rt.type('Sheet1', `A2:C${rows.length + 1}`, rows);
    rt.select('Sheet1', `A1:C${rows.length + 1}`);
    const req = selectionRequest(rt, user, 'tcpa-verify', ['verification_code', 'phone_type']);

    // The second chunk fails after fetching; the sidebar is reopened and the run resumed.
    let progress = rt.scriptRun(user, 'startRun', req, false) as Progress;
    progress = rt.scriptRun(user, 'runChunk', progress.runId) as Progress;
    expect(progress.breakdown).toBeNull(); // not before the run ends
    rt.faults.set('setValues', 'Service Spreadsheets timed out while accessing document.');
    expect(() => rt.scriptRun(user, 'runChunk', progress.runId)).toThrow(/timed out/);
    progress = (rt.scriptRun(user, 'getSidebarState') as State).run as Progress;
    while (!progress.finished) progress = rt.scriptRun(user, 'runChunk', progress.runId) as Progress;

    const b = progress.breakdown as Breakdown;
    const out = rt.values('Sheet1', `D2:F${rows.length + 1}`);
    const okRows = out.filter((r) => String(r[0]).startsWith('ok')).length;
    const c = progress.counts;
    // The match rate is the run's own counts; empty rows are outside it.
    const outcome = (name: string) => b.outcomes.find((o) => o.outcome === name)?.count;
    expect(outcome('ok')).toBe(okRows);
    expect(outcome('noMatch')).toBe(c.noMatch);
    expect(outcome('invalid')).toBe(c.invalid);
    expect(outcome('errors')).toBe(c.errors);
    expect(outcome('unreadable')).toBe(0);
    expect(c.errors).toBe(1);
    expect(c.noMatch).toBe(out.filter((r) => r[0] === 'no match').length);
    expect(b.emptyRows).toBe(c.empty);
    expect(b.rows).toBe(700 - (c.empty as number));
    expect(b.answered).toBe(okRows);
    for (const o of b.outcomes) expect(o.share).toBeCloseTo(o.count / b.rows, 12);

    // Each coded column: the breakdown's counts are the sheet's, value for value.
    expect(b.fields.map((f) => f.column)).toEqual(['verification_code', 'phone_type']);
    expect(b.notWritten).toEqual([]);
    expect(countsInBreakdown(b.fields[0])).toEqual(countsInSheet(out, 1));
    expect(countsInBreakdown(b.fields[1])).toEqual(countsInSheet(out, 2));
    for (const f of b.fields) {
      expect(f.values.reduce((sum, v) => sum + v.count, 0)).toBe(okRows);
      for (const v of f.values) expect(v.share).toBeCloseTo(v.count / okRows, 12);
    }
    // Likely meanings beside the codes; what the service invented is counted as the cell holds it.
    const code = (value: string) => b.fields[0]?.values.find((v) => v.value === value);
    expect(code('Y')?.meaning).toBe('record verified');
    expect(code(HOSTILE_CODE)).toMatchObject({ unexpected: true });
    expect(code(HOSTILE_CODE)?.count).toBe(out.filter((r) => r[1] === HOSTILE_CODE).length);
    expect(b.fields[1]?.values.find((v) => v.value === '=1+1')?.count).toBeGreaterThan(0);
    expect(b.fields[1]?.values.find((v) => v.value === 'W')?.meaning).toBe('wireless');
    console.log(
      `TCPA run of 700 rows: ${b.outcomes.map((o) => `${o.label} ${o.count}`).join(', ')}; ` +
        b.fields
          .map((f) => `${f.column}: ${f.values.map((v) => `${v.label} ${v.count}`).join(', ')}`)
          .join('; '),
    );
  });

  test('ID Verify: scores counted in bands of the written cells; coded columns not chosen are named', () => {
    const rt = newRuntime();
    const user = rt.owner;
    const rows = Array.from({ length: 90 }, (_, i) => [
      `Ann${i % 7}`,
      `Lee${i}`,
      phone(i % 60),
      `a${i % 60}@example.com`,
    ]);
    rt.type('Sheet1', 'A1:D1', [['First name', 'Last name', 'Phone', 'Email']]);
    rt.type('Sheet1', 'A2:D91', rows);
    rt.select('Sheet1', 'A1:D91');
    const req = selectionRequest(rt, user, 'id-verify', ['IDVerifyScore', 'ValidationSummary']);
    let progress = rt.scriptRun(user, 'startRun', req, false) as Progress;
    while (!progress.finished) progress = rt.scriptRun(user, 'runChunk', progress.runId) as Progress;
    const b = progress.breakdown as Breakdown;
    const out = rt.values('Sheet1', 'E2:G91');
    expect(b.fields.map((f) => [f.column, f.countedAs])).toEqual([
      ['ValidationSummary', 'values'],
      ['IDVerifyScore', 'bands'],
    ]);
    expect(b.notWritten).toEqual(['LinkageSummary', 'RiskFlagSummary']);
    const band = (text: string) => {
      if (text.trim() === '') return '(not computed)';
      const n = Number(text);
      return ['0–19', '20–39', '40–59', '60–79', '80–100'][Math.min(4, Math.floor(n / 20))] as string;
    };
    expect(countsInBreakdown(b.fields[1])).toEqual(countsInSheet(out, 1, band));
    expect(countsInBreakdown(b.fields[0])).toEqual(countsInSheet(out, 2));
    expect(b.answered).toBe(90);
  });

  test('a run that writes no coded column shows the match rate only, and says which columns to choose', () => {
    const rt = newRuntime();
    rt.type('Sheet1', 'A1:A4', [['Phone'], [phone(1)], ['n/a'], [phone(2)]]);
    rt.select('Sheet1', 'A1:A4');
    const req = selectionRequest(rt, rt.owner, 'phone-lookup', ['FName', 'City']);
    let progress = rt.scriptRun(rt.owner, 'startRun', req, false) as Progress;
    while (!progress.finished) progress = rt.scriptRun(rt.owner, 'runChunk', progress.runId) as Progress;
    expect(progress.breakdown).toMatchObject({
      rows: 3,
      answered: 2,
      fields: [],
      notWritten: ['Deliverable'],
    });
    expect(progress.breakdown?.outcomes.find((o) => o.outcome === 'invalid')?.count).toBe(1);
  });
});
