// Set-up and readings shared by sidebar-run.test.ts: a sheet of leads, run requests, counts of writes.
import { expect } from 'vitest';
import { phone } from './helpers.js';
import type { Runtime, User } from './runtime/index.js';

export interface Plan {
  rows: number;
  empty: number;
  invalid: number;
  distinct: number;
  cached: number;
  transactions: number;
  nonEmpty: number;
  targetA1: string;
}
export interface Progress {
  runId: string;
  total: number;
  finished: boolean;
  counts: {
    done: number;
    spent: number;
    cached: number;
    noMatch: number;
    invalid: number;
    errors: number;
    empty: number;
  };
}
export interface State {
  run: Progress | null;
  selection: {
    sheetId: number;
    row: number;
    column: number;
    numRows: number;
    numColumns: number;
    suggestions: Record<string, { fields: Record<string, number>; problem: string | null }>;
  };
}

export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Kind = 'empty' | 'invalid' | 'request';

/** Rows of [name, phone as people type it], and what each row is, worked out here without core. */
export function leads(
  count: number,
  random: () => number,
): { rows: (string | number)[][]; kinds: Kind[]; keys: string[] } {
  const rows: (string | number)[][] = [];
  const kinds: Kind[] = [];
  const keys: string[] = [];
  const seen: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = random();
    const name = `Lead ${i}`;
    if (r < 0.06) {
      rows.push([name, '']);
      kinds.push('empty');
      keys.push('');
    } else if (r < 0.12) {
      rows.push([name, r < 0.09 ? '555-12' : 'n/a']);
      kinds.push('invalid');
      keys.push('');
    } else {
      let digits: string;
      if (r < 0.13)
        digits = '5550000204'; // the sandbox's "no match": paid, like any answer
      else if (r < 0.38 && seen.length > 0) digits = seen[Math.floor(random() * seen.length)] as string;
      else {
        digits = phone(10_000 + i);
        seen.push(digits);
      }
      // The same phone typed three ways: a number, with formatting, with a country code. ("+1 ..."
      // would be read as a formula by Sheets, so people type these as 1-555-...)
      const shape = Math.floor(random() * 3);
      const typed =
        shape === 0
          ? Number(digits)
          : shape === 1
            ? `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`
            : `1-${digits.slice(0, 3)}-${digits.slice(3, 6)}-${digits.slice(6)}`;
      rows.push([name, typed]);
      kinds.push('request');
      keys.push(digits);
    }
  }
  return { rows, kinds, keys };
}

export function setUp(rt: Runtime, rows: (string | number)[][]): void {
  rt.sheet().maxRows = rows.length + 100;
  rt.type('Sheet1', 'A1:B1', [['Name', 'Phone']]);
  rt.type('Sheet1', `A2:B${rows.length + 1}`, rows);
  rt.select('Sheet1', `A1:B${rows.length + 1}`);
}

export const COLUMNS = ['FName', 'LName', 'City', 'Zip'];

export function request(rt: Runtime, user: User, extra: Record<string, unknown> = {}) {
  const state = rt.scriptRun(user, 'getSidebarState') as State;
  const suggestion = state.selection.suggestions['phone-lookup'];
  expect(suggestion?.problem).toBeNull();
  const { sheetId, row, column, numRows, numColumns } = state.selection;
  return {
    selection: { sheetId, row, column, numRows, numColumns },
    operation: 'phone-lookup',
    mapping: suggestion?.fields,
    columns: COLUMNS,
    ...extra,
  };
}

/** Cells of a block of the sheet and how many times scripts wrote or touched each. */
export function writes(rt: Runtime, rows: number, firstColumn: number, columns: number) {
  const sheet = rt.sheet();
  const counts: number[] = [];
  const touches: number[] = [];
  for (let r = 1; r <= rows; r++) {
    for (let c = firstColumn; c < firstColumn + columns; c++) {
      counts.push(sheet.cell(r, c)?.writes ?? 0);
      touches.push(sheet.cell(r, c)?.touches ?? 0);
    }
  }
  return { counts, touches };
}
