// Values on their way into cells with setValues. Sheets parses a written string as if typed: "=..."
// (and "+1-2", "-3+4", "@SUM(1,2)") becomes a formula, "02134" a number without its zero,
// "11/22/2026" a date. The add-on writes API answers, which it does not control, so:
// - target cells get the plain-text format first (keeps leading zeros and dates as text);
// - a string that could still be read as a formula, or that starts with an apostrophe, gets a
//   leading apostrophe, Sheets' own "this is text" mark, which it does not keep in the value.
//   Whether plain-text format alone stops formulas is not documented, so both are done.
import { type LeafValue, neutraliseFormula } from '@enrich/core/universal';

export type CellValue = string | number | boolean;

export const TEXT_FORMAT = '@';

/**
 * A value as it is written: formula-like text made inert by core's one list (OWASP's), and text
 * that starts with an apostrophe given one more, since Sheets takes a leading apostrophe as its
 * "this is text" mark and would drop it (a Sheets rule, not a formula one, so it lives here).
 * `scrub` hides the key, should anything have carried it this far.
 */
export function toCell(value: LeafValue | undefined, scrub?: (text: string) => string): CellValue {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return value;
  const text = scrub ? scrub(value) : value;
  return text.startsWith("'") ? `'${text}` : neutraliseFormula(text);
}

export function toCells(
  row: readonly (LeafValue | undefined)[],
  scrub?: (text: string) => string,
): CellValue[] {
  return row.map((value) => toCell(value, scrub));
}

/** A value read back from a cell, ready to be written again as the same text. */
export function fromCell(value: unknown): LeafValue {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return String(value);
}
