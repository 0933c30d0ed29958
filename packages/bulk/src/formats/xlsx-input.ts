// The workbook a run reads, as its output needs it: an .xlsx output of an .xlsx input is the input
// workbook itself, every part copied as it was, with the output columns added to the rows of the
// sheet read (xlsx-rewrite.ts). What that takes is known to the source that opened the workbook
// (xlsx-source.ts): the file, its zip directory when it was read (the output checks that the file
// has not changed since), the sheet's part in the zip, its header row and width.
//
// The source remembers it under its header, the array the run hands both to the planner and to the
// output's format as the shape's `inputHeader` (run-files.ts): a format is made from that shape
// alone, and the header array is the one object of the source's that reaches it. A WeakMap, so
// that it lives as long as the run that holds the header.
import type { ZipEntry } from './zip-file.js';

export interface XlsxInput {
  readonly path: string;
  readonly entries: readonly ZipEntry[];
  /** The sheet's part in the zip (xl/worksheets/sheet2.xml). */
  readonly sheetPart: string;
  /** The header's row number, as Excel shows it (1 unless rows above it are empty). */
  readonly headerRow: number;
  /** The header's columns: a row's cells past them are written after status, as text. */
  readonly width: number;
}

const inputs = new WeakMap<readonly string[], XlsxInput>();

export function rememberXlsxInput(header: readonly string[], input: XlsxInput): void {
  inputs.set(header, input);
}

/** The workbook whose source read this header, if it was one. */
export function xlsxInputOf(header: readonly string[]): XlsxInput | undefined {
  return inputs.get(header);
}
