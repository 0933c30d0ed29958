// Values on their way into cells with setValues. Sheets parses a written string as if typed: "=..."
// (and "+1-2", "-3+4", "@SUM(1,2)") becomes a formula, "02134" a number without its zero,
// "11/22/2026" a date. The add-on writes API answers, which it does not control, so:
// - target cells get the plain-text format first (keeps leading zeros and dates as text);
// - a string that could still be read as a formula, or that starts with an apostrophe, gets a
//   leading apostrophe, Sheets' own "this is text" mark, which it does not keep in the value.
//   Whether plain-text format alone stops formulas is not documented, so both are done.
import type { LeafValue } from '@enrich/core';

export type CellValue = string | number | boolean;

export const TEXT_FORMAT = '@';

const FORMULA_LIKE = /^[=+\-@']/;

export function toCell(value: LeafValue | undefined): CellValue {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return FORMULA_LIKE.test(value) ? `'${value}` : value;
  return value;
}

export function toCells(row: readonly (LeafValue | undefined)[]): CellValue[] {
  return row.map(toCell);
}

/** A value read back from a cell, ready to be written again as the same text. */
export function fromCell(value: unknown): LeafValue {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return String(value);
}
