// A workbook's cells as exceljs reads them, typed (a number with its number format, a date, a
// formula with its cached result), and as text: the fields that plan the requests (a phone typed as
// a number reads "5551234567", a date "2024-03-05"). An .xlsx output does not write these back: it
// copies each cell's XML as it was (xlsx-rewrite.ts).
import type { Cell, CellValue, Row } from 'exceljs';

/**
 * A cell as read: null (empty), text, a number, a boolean, or one of
 * these objects: a number with its number format ({ n, z }), a date ({ d: ISO 8601 in UTC, as
 * exceljs reads Excel's serial numbers, z: its format }), a formula ({ f, r: its cached result,
 * z }) or an error ({ e: "#N/A" }).
 */
export type TypedCell =
  | null
  | string
  | number
  | boolean
  | { readonly n: number; readonly z: string }
  | { readonly d: string; readonly z?: string }
  | { readonly f: string; readonly r?: string | number | boolean; readonly z?: string }
  | { readonly e: string };

/** The row's cells by column (A first), empty ones null, none after the last with a value. */
export function typedCells(row: Row, date1904: boolean): TypedCell[] {
  const cells: TypedCell[] = [];
  row.eachCell({ includeEmpty: false }, (cell, column) => {
    const typed = typedCell(cell, date1904);
    if (typed === null) return;
    while (cells.length < column - 1) cells.push(null);
    cells[column - 1] = typed;
  });
  return cells;
}

function typedCell(cell: Cell, date1904: boolean): TypedCell {
  const value = cell.value as CellValue;
  const format = cell.numFmt && cell.numFmt !== 'General' ? cell.numFmt : undefined;
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return format ? { n: value, z: format } : value;
  if (value instanceof Date) return dateCell(value, format);
  if ('richText' in value) return value.richText.map((run) => run.text).join('');
  if ('formula' in value || 'sharedFormula' in value) {
    const formula = 'formula' in value ? value.formula : '';
    let cached = value.result;
    if (cached instanceof Date) cached = excelSerial(cached);
    // An error result, which exceljs reads as NaN, or one it could not read: no cached result.
    if (typeof cached === 'object' || (typeof cached === 'number' && Number.isNaN(cached)))
      cached = undefined;
    // A date's serial number counted from 1904 (old Mac workbooks) is written counted from 1900.
    if (date1904 && typeof cached === 'number' && isDateFormat(format)) cached += 1462;
    return {
      f: formula ?? '',
      ...(cached === undefined ? {} : { r: cached }),
      ...(format ? { z: format } : {}),
    };
  }
  if ('error' in value) return { e: String(value.error) };
  if ('text' in value) {
    const text = value.text as string | { richText: { text: string }[] };
    return typeof text === 'string' ? text : text.richText.map((run) => run.text).join('');
  }
  return String(value);
}

function dateCell(date: Date, format: string | undefined): TypedCell {
  if (Number.isNaN(date.getTime())) return null;
  return format ? { d: date.toISOString(), z: format } : { d: date.toISOString() };
}

/** A date as Excel's serial number (days since 1900, the time as the fraction). */
function excelSerial(date: Date): number {
  return 25569 + date.getTime() / 86_400_000;
}

/** Whether a number format shows a date or a time (the test exceljs applies when reading). */
function isDateFormat(format: string | undefined): boolean {
  if (!format) return false;
  const bare = format.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, '');
  return /[ymdhMsb]/.test(bare);
}

/** A cell as text, for planning: what a person reads in the cell, without its display format. */
export function textOf(cell: TypedCell): string {
  if (cell === null) return '';
  if (typeof cell === 'string') return cell;
  // String() writes an integer as its digits (5551234567, never 5.55E+09) up to 1e21.
  if (typeof cell === 'number') return String(cell);
  if (typeof cell === 'boolean') return cell ? 'TRUE' : 'FALSE';
  if ('n' in cell) return shownWithZeros(cell.n, cell.z);
  if ('d' in cell) return isoText(new Date(cell.d));
  if ('e' in cell) return cell.e;
  const result = cell.r;
  if (result === undefined) return '';
  if (typeof result === 'number' && isDateFormat(cell.z)) return isoText(dateOfSerial(result));
  return textOf(result);
}

/**
 * A whole number whose format shows leading zeros (Excel's "Zip Code" 00000 and "Zip Code + 4"
 * 00000-0000, an id's 000000) is read as it shows: the zeros are part of the code (02134, not 2134).
 */
function shownWithZeros(value: number, format: string): string {
  if (!Number.isInteger(value) || value < 0) return String(value);
  if (/^0+$/.test(format)) return String(value).padStart(format.length, '0');
  if (format === '00000-0000') {
    const digits = String(value).padStart(9, '0');
    return `${digits.slice(0, 5)}-${digits.slice(5)}`;
  }
  return String(value);
}

function dateOfSerial(serial: number): Date {
  return new Date(Math.round((serial - 25569) * 86_400_000));
}

/** ISO 8601: the date alone at midnight; else date and time, as Excel holds it (no time zone). */
function isoText(date: Date): string {
  if (Number.isNaN(date.getTime())) return '';
  const iso = date.toISOString();
  if (iso.endsWith('T00:00:00.000Z')) return iso.slice(0, 10);
  return iso.replace(/\.000Z$/, '').replace(/Z$/, '');
}

/** The row's fields as text: padded to the header's width; a longer row keeps its extra fields. */
export function fieldsOf(cells: readonly TypedCell[], width: number): string[] {
  const fields = cells.map(textOf);
  while (fields.length < width) fields.push('');
  return fields;
}
