// How Sheets reads what is written into a cell, and a formula's result as a grid.
import type { Value } from './spreadsheet-model.js';

export const TEXT_FORMAT = '@';

/** Rewrites the row numbers of relative A1 references in a formula (not inside "quoted" text). */
export function shiftRows(formula: string, move: (row: number) => number): string {
  return formula
    .split(/("(?:[^"]|"")*")/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(/(\$?)([A-Za-z]{1,3})(\$?)(\d+)\b/g, (all, c$, letters, r$, digits) =>
            r$ === '$' ? all : `${c$}${letters}${r$}${move(Number(digits))}`,
          ),
    )
    .join('');
}

/**
 * How Sheets reads a value written as if typed. Strict where Google does not document it: a
 * leading =, +, - or @ makes a formula even in a plain-text cell (unless the rest is a plain
 * number); only a leading apostrophe surely makes text, and it is not kept.
 */
export function parseInput(input: Value, format: string | undefined): { value: Value; formula?: string } {
  if (typeof input !== 'string') return { value: input };
  if (input.startsWith("'")) return { value: input.slice(1) };
  if (/^[=+\-@]/.test(input) && !/^[+-]?\d+(\.\d+)?$/.test(input)) {
    return { value: '', formula: input.startsWith('=') ? input : `=${input}` };
  }
  if (format === TEXT_FORMAT) return { value: input };
  if (/^[+-]?\d+(\.\d+)?$/.test(input.trim())) return { value: Number(input) };
  if (/^(true|false)$/i.test(input.trim())) return { value: input.trim().toUpperCase() === 'TRUE' };
  const date = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(input.trim());
  if (date) return { value: new Date(Date.UTC(Number(date[3]), Number(date[1]) - 1, Number(date[2]))) };
  return { value: input };
}

/** A custom function's return value as a grid of cell values, or why Sheets would show #ERROR!. */
export function toGrid(value: unknown): Value[][] | string {
  const cellOf = (v: unknown): Value | string | undefined => {
    if (v === null || v === undefined) return '';
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
    if (Object.prototype.toString.call(v) === '[object Date]') return v as Date;
    return undefined;
  };
  const rows = Array.isArray(value) ? value : [[value]];
  if (rows.length === 0) return 'Result was empty.';
  const grid: Value[][] = [];
  let width = -1;
  for (const row of rows) {
    const line = Array.isArray(row) ? row : [row];
    if (width === -1) width = line.length;
    if (line.length !== width || width === 0) return 'Result rows must all have the same, non-zero width.';
    const cells: Value[] = [];
    for (const v of line) {
      const cell = cellOf(v);
      if (cell === undefined) return 'Result was not a number, text, boolean or date.';
      cells.push(cell);
    }
    grid.push(cells);
  }
  return grid;
}
