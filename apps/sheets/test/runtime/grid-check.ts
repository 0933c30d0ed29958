// What Range.setValues (and setValue, setNumberFormats) accept, and how a value is displayed.
import type { Box, Value } from './spreadsheet-model.js';

/** Sheets refuses a cell of more than 50,000 characters. */
export const MAX_CELL_CHARS = 50_000;

export function charsOf(values: readonly (readonly unknown[])[]): number {
  let chars = 0;
  for (const row of values) for (const v of row) if (typeof v === 'string') chars += v.length;
  return chars;
}

/** The values of setValues and friends as Apps Script checks them: the range's size, cell types, cell size. */
export function checkGrid(
  box: Box,
  values: unknown,
  what: string,
  fail: (message: string) => never,
): Value[][] {
  if (!Array.isArray(values))
    fail(`The parameters (${typeof values}) don't match the method signature for ${what}.`);
  const rows = values as unknown[];
  if (rows.length !== box.numRows) {
    fail(
      `The number of rows in the data does not match the number of rows in the range. The data has ${rows.length} but the range has ${box.numRows}.`,
    );
  }
  for (const row of rows) {
    if (!Array.isArray(row)) fail(`The parameters don't match the method signature for ${what}.`);
    for (const v of row as unknown[]) {
      if (typeof v === 'string' && v.length > MAX_CELL_CHARS) {
        fail(`Your input contains more than the maximum of ${MAX_CELL_CHARS} characters in a single cell.`);
      }
    }
    if ((row as unknown[]).length !== box.numColumns) {
      fail(
        `The number of columns in the data does not match the number of columns in the range. The data has ${(row as unknown[]).length} but the range has ${box.numColumns}.`,
      );
    }
    for (const v of row as unknown[]) {
      const ok =
        typeof v === 'string' ||
        typeof v === 'number' ||
        typeof v === 'boolean' ||
        Object.prototype.toString.call(v) === '[object Date]';
      if (!ok)
        fail(
          `${what}: cell values must be text, numbers, booleans or dates; got ${v === null ? 'null' : typeof v}`,
        );
    }
  }
  return rows as Value[][];
}

export function display(value: Value): string {
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date || Object.prototype.toString.call(value) === '[object Date]') {
    const d = value as Date;
    return `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()}`;
  }
  return String(value);
}
