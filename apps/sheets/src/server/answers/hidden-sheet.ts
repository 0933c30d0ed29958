// The hidden sheet `_enrich_answers`: the durable store of this spreadsheet that keeps every answer
// paid for in it, for as long as the answer's freshness allows (30 days by default, a document
// setting), so that a recalculation days later does not pay again. Why a sheet: it is the one
// store that custom functions can read (SpreadsheetApp get* on the same spreadsheet) and that
// lasts; the cache lasts 6 hours at most, and properties are limited to 500 KB and cannot be
// written by formulas either.
//
// Custom functions may only read it; executions that may write (menu, sidebar, triggers) fill it
// (keep.ts). Layout, to stay compact and cheap to read:
// - row r (1..BUCKETS) holds the answers whose id falls in bucket r-1, so one formula reads only
//   the rows of its own answers, and a range formula the whole block in one getValues;
// - a row's cells each hold a JSON object {id: [paid at (s, base 36), outcome, people]}, gzipped and in
//   base64 behind a "z" (answers of one API repeat the same field names: about 4 times smaller, so
//   a formula reading every answer reads a quarter of the characters), at most MAX_CELL_CHARS
//   characters (Sheets refuses more than 50,000 in a cell); a bucket grows to the right as it fills.
// Ids are digests of base URL + request (paid-answer.ts): no input is in the clear. The answers are
// the same data the formulas show in the cells; every editor can unhide the sheet (README).
import { isStoredOutcome, type Outcome } from '@enrich/core/universal';
import { activeSpreadsheet } from '../active-spreadsheet.js';
import { TEXT_FORMAT } from '../cells/values.js';
import { forKeeping, type PaidAnswer, spread } from './paid-answer.js';

export const HIDDEN_SHEET_NAME = '_enrich_answers';
/** Every sheet of the add-on's own (answers, undo copies) starts so: never searched for formulas. */
export const PRIVATE_SHEET_PREFIX = '_enrich_';
export const BUCKETS = 256;
/** Sheets' limit is 50,000 characters per cell; keep a margin. */
export const MAX_CELL_CHARS = 45_000;
/** JSON characters packed into one cell before compression; a cell that still comes out too long is split. */
const JSON_PER_CELL = 160_000;
/** Reading this many bucket rows one by one costs more calls than one read of the whole block. */
const ROW_BY_ROW_MAX = 8;

/** Id → [paid at (s, base 36), outcome, the people its request carried (paid-answer.ts, whoOf)]. */
type Cell = Record<string, [string, Outcome, (readonly string[])?]>;

function rowOf(id: string): number {
  return (spread(id) % BUCKETS) + 1;
}

function hiddenSheet(): GoogleAppsScript.Spreadsheet.Sheet | null {
  return activeSpreadsheet().getSheetByName(HIDDEN_SHEET_NAME);
}

/**
 * The kept answers among `ids` paid for after `freshSince` (ms). Read-only (get* calls), so a
 * custom function may call it; no sheet yet, or an unreadable cell, is simply a miss.
 */
export function readHiddenSheet(ids: readonly string[], freshSince: number): Map<string, PaidAnswer> {
  const found = new Map<string, PaidAnswer>();
  if (ids.length === 0) return found;
  const sheet = hiddenSheet();
  if (!sheet) return found;
  const width = sheet.getLastColumn();
  if (width < 1) return found;
  const rows = [...new Set(ids.map(rowOf))].sort((a, b) => a - b);
  const wanted = new Set(ids);
  const take = (line: readonly unknown[]) => {
    for (const [id, answer] of parseRow(line)) {
      if (wanted.has(id) && answer.paidAt > freshSince) found.set(id, answer);
    }
  };
  if (rows.length <= ROW_BY_ROW_MAX) {
    for (const row of rows) take(sheet.getRange(row, 1, 1, width).getValues()[0] ?? []);
  } else {
    const block = sheet.getRange(1, 1, BUCKETS, width).getValues();
    for (const row of rows) take(block[row - 1] ?? []);
  }
  return found;
}

/**
 * Adds answers to the sheet, dropping answers older than `freshSince` from the rows it touches.
 * A few rows are read and written one by one (a keep after one formula is quick); many, as the
 * whole block in one getValues and one setValues. Only for executions that may write, under the
 * document lock (the caller's). Returns how many of `answers` are now kept (an answer too big for
 * a cell is not).
 */
export function writeHiddenSheet(answers: ReadonlyMap<string, PaidAnswer>, freshSince: number): number {
  const sheet = hiddenSheet() ?? createHiddenSheet();
  const touched = [...new Set([...answers.keys()].map(rowOf))].sort((a, b) => a - b);
  return rewrite(sheet, touched, answers, freshSince).kept;
}

/**
 * Drops from every row the answers `drop` picks (Forget a person), rewriting the whole block when
 * any is found; under the document lock (the caller's). Returns how many were dropped.
 */
export function dropFromHiddenSheet(drop: (answer: PaidAnswer) => boolean): number {
  const sheet = hiddenSheet();
  if (!sheet) return 0;
  const rows = Array.from({ length: BUCKETS }, (_, i) => i + 1);
  return rewrite(sheet, rows, new Map(), 0, drop).dropped;
}

function rewrite(
  sheet: GoogleAppsScript.Spreadsheet.Sheet,
  touched: readonly number[],
  answers: ReadonlyMap<string, PaidAnswer>,
  freshSince: number,
  drop?: (answer: PaidAnswer) => boolean,
): { kept: number; dropped: number } {
  const width = Math.max(1, sheet.getLastColumn());
  const few = touched.length <= ROW_BY_ROW_MAX;
  const current = new Map<number, unknown[]>();
  if (few) {
    for (const row of touched) current.set(row, sheet.getRange(row, 1, 1, width).getValues()[0] ?? []);
  } else {
    sheet
      .getRange(1, 1, BUCKETS, width)
      .getValues()
      .forEach((line, i) => {
        current.set(i + 1, line);
      });
  }
  const byRow = new Map<number, Map<string, PaidAnswer>>();
  for (const row of touched) byRow.set(row, parseRow(current.get(row) ?? []));
  for (const [id, answer] of answers) byRow.get(rowOf(id))?.set(id, answer);
  let kept = 0;
  let dropped = 0;
  for (const bucket of byRow.values()) {
    for (const [id, answer] of bucket) {
      if (drop?.(answer)) {
        bucket.delete(id);
        dropped++;
      }
    }
  }
  if (drop && dropped === 0) return { kept, dropped };
  const written = new Map<number, unknown[]>(current);
  for (const [row, bucket] of byRow) {
    const live = [...bucket.entries()]
      .filter(([, a]) => a.paidAt > freshSince)
      .sort((a, b) => b[1].paidAt - a[1].paidAt);
    const { cells, packed } = packCells(live);
    for (const id of packed) if (answers.has(id)) kept++;
    written.set(row, cells);
  }
  const newWidth = Math.max(width, ...[...written.values()].map((cells) => cells.length));
  if (newWidth > sheet.getMaxColumns()) {
    sheet.insertColumnsAfter(sheet.getMaxColumns(), newWidth - sheet.getMaxColumns());
  }
  const padded = (cells: readonly unknown[]) =>
    Array.from({ length: newWidth }, (_, c) => (c < cells.length ? cells[c] : '')) as string[];
  // Plain text, so that Sheets never reads a cell as a number or a formula.
  if (few) {
    for (const row of touched) {
      const target = sheet.getRange(row, 1, 1, newWidth);
      target.setNumberFormat(TEXT_FORMAT);
      target.setValues([padded(written.get(row) ?? [])]);
    }
  } else {
    const target = sheet.getRange(1, 1, BUCKETS, newWidth);
    target.setNumberFormat(TEXT_FORMAT);
    target.setValues(Array.from({ length: BUCKETS }, (_, i) => padded(written.get(i + 1) ?? [])));
  }
  return { kept, dropped };
}

function createHiddenSheet(): GoogleAppsScript.Spreadsheet.Sheet {
  const spreadsheet = activeSpreadsheet();
  // Inserting a sheet makes it the active one: put the user's selection back afterwards.
  const selection = spreadsheet.getActiveRange();
  const sheet = spreadsheet.insertSheet(HIDDEN_SHEET_NAME, spreadsheet.getSheets().length);
  sheet.hideSheet();
  if (selection) selection.activate();
  else spreadsheet.getSheets()[0]?.activate();
  return sheet;
}

/** A row's cells as id → answer; a cell that is not what we wrote is skipped. */
function parseRow(line: readonly unknown[]): Map<string, PaidAnswer> {
  const out = new Map<string, PaidAnswer>();
  for (const text of line) {
    if (typeof text !== 'string' || !text.startsWith('z')) continue;
    let cell: Cell;
    try {
      cell = JSON.parse(unpack(text)) as Cell;
    } catch {
      continue;
    }
    if (!cell || typeof cell !== 'object') continue;
    for (const [id, entry] of Object.entries(cell)) {
      if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !isStoredOutcome(entry[1])) continue;
      out.set(id, {
        outcome: entry[1],
        paidAt: Number.parseInt(entry[0], 36) * 1000,
        who: Array.isArray(entry[2]) ? entry[2] : undefined,
      });
    }
  }
  return out;
}

/** Answers packed into compressed cells of at most MAX_CELL_CHARS, newest first. */
function packCells(answers: readonly [string, PaidAnswer][]): { cells: string[]; packed: string[] } {
  const cells: string[] = [];
  const packed: string[] = [];
  let group: [string, string][] = [];
  let length = 2;
  const flush = (parts: [string, string][]) => {
    if (parts.length === 0) return;
    const text = pack(`{${parts.map(([, part]) => part).join(',')}}`);
    if (text.length <= MAX_CELL_CHARS) {
      cells.push(text);
      for (const [id] of parts) packed.push(id);
    } else if (parts.length > 1) {
      // Compressed less well than expected: split in two.
      const half = Math.ceil(parts.length / 2);
      flush(parts.slice(0, half));
      flush(parts.slice(half));
    } // else one answer too big for a cell even compressed: it stays in the cache only.
  };
  for (const [id, answer] of answers) {
    const paid = Math.floor(answer.paidAt / 1000).toString(36);
    const part = `${JSON.stringify(id)}:${JSON.stringify([paid, forKeeping(answer.outcome), answer.who ?? []])}`;
    if (length + part.length + 1 > JSON_PER_CELL && group.length > 0) {
      flush(group);
      group = [];
      length = 2;
    }
    group.push([id, part]);
    length += part.length + 1;
  }
  flush(group);
  return { cells, packed };
}

/** JSON → "z" + base64 of its gzip. */
function pack(json: string): string {
  return `z${Utilities.base64Encode(Utilities.gzip(Utilities.newBlob(json)).getBytes())}`;
}

function unpack(text: string): string {
  return Utilities.ungzip(Utilities.newBlob(Utilities.base64Decode(text.slice(1)))).getDataAsString();
}
