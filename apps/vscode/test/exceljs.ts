// The bulk engine's own exceljs (a dependency of @enrich/bulk, bundled into the extension with it,
// not one of the extension's), for tests that make workbooks as an office tool writes them and read
// the outputs back. Only the little of its API these tests use is typed here.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

export interface ExcelCell {
  value: unknown;
  numFmt: string;
  /** exceljs's ValueType: Number 2, String 3, Date 4, Formula 6, Boolean 9... */
  readonly type: number;
}

export interface ExcelRow {
  getCell(column: number): ExcelCell;
  readonly cellCount: number;
}

export interface ExcelSheet {
  readonly name: string;
  state: string;
  addRow(values: readonly unknown[]): ExcelRow;
  getRow(row: number): ExcelRow;
  readonly actualRowCount: number;
}

export interface ExcelWorkbook {
  addWorksheet(name: string, options?: { state?: string }): ExcelSheet;
  readonly worksheets: ExcelSheet[];
  readonly xlsx: { writeFile(path: string): Promise<void>; readFile(path: string): Promise<unknown> };
}

const bulk = resolve(import.meta.dirname, '../../../packages/bulk/package.json');

export const ExcelJS = createRequire(bulk)('exceljs') as { Workbook: new () => ExcelWorkbook };

/** The values and types of a row's first `width` cells, to compare an output's with its input's. */
export function cellsOf(row: ExcelRow, width: number): { value: unknown; type: number; numFmt: string }[] {
  return Array.from({ length: width }, (_, i) => {
    const cell = row.getCell(i + 1);
    return { value: cell.value, type: cell.type, numFmt: cell.numFmt };
  });
}
