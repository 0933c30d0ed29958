// The output as an Excel workbook (.xlsx): one sheet, named as the input's sheet (or "Enriched"),
// the header row first, then a row per input row in its order. A workbook is a zip of XML parts
// that cannot be appended to row by row, so the lines OutputFile writes to <out>.partial are an
// intermediate, one JSON array of cells per row, and finish() streams them into the workbook with
// exceljs's WorkbookWriter (never the whole workbook in memory), the extra columns added there.
//
// An .xlsx input's cells are written back as they were (xlsx-source.ts reads them typed: a number
// stays a number with its number format, a date a date, a formula keeps its formula and cached
// result); another input's fields are text, and so are the output columns and status: a phone
// "0044..." stays text, never becoming a number that loses its zeros.
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import type { CellValue, Row } from 'exceljs';
import type { ExtraRows } from './extra-columns.js';
import type { OutputShape, RowFormat } from './row-format.js';
import type { RowResult } from './row-result.js';
import type { TypedCell } from './xlsx-cells.js';
import { loadExcel, openXlsxSource } from './xlsx-source.js';

/** The run's shape, and the input's sheet when it was a workbook (the output's sheet takes its name). */
export function xlsxFormat(shape: OutputShape): RowFormat {
  const width = shape.inputHeader.length;
  const statusColumn = shape.header.at(-1) ?? 'status';
  const keepOriginal = shape.inputKind === 'xlsx';
  return {
    kind: 'xlsx',
    linesAreTheFile: false,
    header: () => `${JSON.stringify(shape.header)}\n`,
    fields(fields, original) {
      // Up to, not including, the closing bracket: result() goes on with a comma. A row's cells past
      // the header go after its status (result.trailing), where they shift no column.
      if (keepOriginal && original !== undefined) return original.slice(0, original.lastIndexOf(']'));
      const cells =
        fields.length === width ? fields : Array.from({ length: width }, (_, i) => fields[i] ?? '');
      return JSON.stringify(cells).slice(0, -1);
    },
    result(result: RowResult) {
      let tail = '';
      for (const cell of result.cells) tail += `,${JSON.stringify(cell)}`;
      tail += `,${JSON.stringify(result.status)}`;
      for (const field of result.trailing ?? []) tail += `,${JSON.stringify(field)}`;
      return `${tail}]\n`;
    },
    finish: (lines, target, extras) => writeWorkbook(lines, target, extras, shape.sheet ?? 'Enriched'),
    async isOurs(path) {
      let header: readonly string[];
      try {
        const source = await openXlsxSource(path, (await stat(path)).size);
        source.close();
        header = source.header;
      } catch {
        return false; // not a workbook we can read: not ours
      }
      if (!header.slice(width).includes(statusColumn)) return false;
      return shape.inputHeader.every((column, i) => header[i] === column);
    },
  };
}

/** Streams the intermediate lines into the workbook at `target`, the extra columns before status. */
async function writeWorkbook(
  source: string,
  target: string,
  extras: ExtraRows | undefined,
  sheetName: string,
): Promise<void> {
  const ExcelJS = await loadExcel();
  // The file is ours, so that an error writing it (a full disk) is caught here rather than thrown
  // from a stream nobody listens to.
  const file = createWriteStream(target);
  let failed: Error | undefined;
  file.on('error', (error) => {
    failed ??= error;
  });
  // Inline strings (no shared-strings table held in memory to the end); styles for number formats.
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: file,
    useSharedStrings: false,
    useStyles: true,
  });
  const sheet = workbook.addWorksheet(sheetName);
  const intake = zipIntake(sheet);
  const lines = createInterface({ input: createReadStream(source), crlfDelay: Number.POSITIVE_INFINITY });
  const names = extras?.names ?? [];
  // Where status is in every row: last in the header (a long row's own fields follow it).
  let statusAt: number | undefined;
  let index = 0;
  try {
    for await (const line of lines) {
      const cells = JSON.parse(line) as TypedCell[];
      if (statusAt === undefined) {
        statusAt = cells.length - 1;
        writeRow(sheet.addRow([]), [
          ...cells.slice(0, statusAt),
          ...(extras?.headerNames ?? []),
          ...cells.slice(statusAt),
        ]);
        continue;
      }
      const extra = (await extras?.at(index)) ?? {};
      index++;
      const row: TypedCell[] = [
        ...cells.slice(0, statusAt),
        ...names.map((n) => extra[n] ?? ''),
        ...cells.slice(statusAt),
      ];
      writeRow(sheet.addRow([]), row);
      if (failed) throw failed;
      if (intake?._writableState.needDrain) await drained(intake, file);
    }
  } finally {
    lines.close();
  }
  sheet.commit();
  if (failed) throw failed;
  await workbook.commit();
}

/**
 * Where the sheet's XML waits for the zip: exceljs 4.4.0 writes every row there at once, however far
 * behind the compression is (100,000 rows outran it by over 100 MB), so the rows wait for it to
 * drain. (A stream of the readable-stream package, whose state Node's streams also have.)
 */
interface Intake {
  readonly _writableState: { readonly needDrain: boolean };
  on(event: 'drain', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
}

function zipIntake(sheet: unknown): Intake | undefined {
  const intake = (sheet as { stream?: { pipes?: Partial<Intake>[] } }).stream?.pipes?.[0];
  return typeof intake?._writableState?.needDrain === 'boolean' ? (intake as Intake) : undefined;
}

function drained(intake: Intake, file: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      intake.off('drain', done);
      file.off('error', done);
      resolve();
    };
    intake.on('drain', done);
    file.on('error', done);
  });
}

function writeRow(row: Row, cells: readonly TypedCell[]): void {
  cells.forEach((cell, i) => {
    if (cell === null || cell === '') return;
    const target = row.getCell(i + 1);
    const { value, format, kind } = excelValue(cell);
    target.value = value;
    target.style = styleFor(kind, format);
  });
  row.commit();
}

type Kind = 'text' | 'number' | 'date' | 'formula' | 'other';

function excelValue(cell: Exclude<TypedCell, null>): { value: CellValue; format?: string; kind: Kind } {
  if (typeof cell === 'string') return { value: cell, kind: 'text' };
  if (typeof cell === 'number') return { value: cell, kind: 'number' };
  if (typeof cell === 'boolean') return { value: cell, kind: 'other' };
  if ('n' in cell) return { value: cell.n, format: cell.z, kind: 'number' };
  if ('d' in cell) return { value: new Date(cell.d), kind: 'date', ...(cell.z ? { format: cell.z } : {}) };
  if ('e' in cell) return { value: { error: cell.e } as CellValue, kind: 'other' };
  // A formula exceljs read without its text (a cell of a formula shared down a column, which its
  // streaming reader does not expand) is written as its cached result.
  if (cell.f === '') return { value: cell.r ?? null, kind: 'other', ...(cell.z ? { format: cell.z } : {}) };
  const value = cell.r === undefined ? { formula: cell.f } : { formula: cell.f, result: cell.r };
  return { value: value as CellValue, kind: 'formula', ...(cell.z ? { format: cell.z } : {}) };
}

// One style object per kind of cell and number format: exceljs's writer knows a style object it has
// seen by its identity and skips working out its XML again (a fresh object per cell did that work
// for every cell). Kinds apart because exceljs gives a style without a format a kind's default.
const styles = new Map<string, { numFmt?: string }>();

function styleFor(kind: Kind, format: string | undefined): { numFmt?: string } {
  const key = `${kind}\u0000${format ?? ''}`;
  let style = styles.get(key);
  if (style === undefined) {
    style = format === undefined ? {} : { numFmt: format };
    styles.set(key, style);
  }
  return style;
}
