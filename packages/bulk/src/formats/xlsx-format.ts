// The output as an Excel workbook (.xlsx). A workbook is a zip of XML parts that cannot be appended
// to row by row, so the lines OutputFile writes to <out>.partial are an intermediate, one JSON
// array of cells per row, from which finish() writes the workbook at the end, the extra columns
// added there.
//
// Of an .xlsx input, the output is the input workbook itself with the output columns added to the
// sheet read (xlsx-rewrite.ts): every cell, sheet and part as it was. A line then holds the row's
// number (the row's original, from xlsx-source.ts) and the cells the output adds; the header's line
// the header's row number and the output's names.
//
// Of another input (CSV, JSON Lines), the output is a new workbook of one sheet, named "Enriched",
// the header row first, streamed with exceljs's WorkbookWriter (never the whole workbook in
// memory); every field is text, and so are the output columns and status: a phone "0044..." stays
// text, never becoming a number that loses its zeros.
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import type { Row } from 'exceljs';
import type { ExtraRows } from '../run/extra-columns.js';
import type { RowResult } from '../run/row-result.js';
import type { OutputShape, RowFormat } from './row-format.js';
import { xlsxInputOf } from './xlsx-input.js';
import { rewriteWorkbook } from './xlsx-rewrite.js';
import { loadExcel, openXlsxSource } from './xlsx-source.js';

/** The run's shape; of a workbook input, the workbook its source read (xlsx-input.ts). */
export function xlsxFormat(shape: OutputShape): RowFormat {
  const width = shape.inputHeader.length;
  const statusColumn = shape.header.at(-1) ?? 'status';
  const input = shape.inputKind === 'xlsx' ? xlsxInputOf(shape.inputHeader) : undefined;
  if (shape.inputKind === 'xlsx' && input === undefined) {
    // A workbook's source always remembers its workbook: without it the cells could not be kept.
    throw new Error('the workbook read is not known to its output (a bug)');
  }
  return {
    kind: 'xlsx',
    linesAreTheFile: false,
    header: () =>
      input
        ? `${JSON.stringify([input.headerRow, ...shape.header.slice(width)])}\n`
        : `${JSON.stringify(shape.header)}\n`,
    fields(fields, original) {
      // Up to, not including, the closing bracket: result() goes on with a comma. A workbook row's
      // original is its row number; its cells are copied from the workbook at the end.
      if (input) return `[${original === undefined ? 'null' : JSON.stringify(Number(original))}`;
      const cells =
        fields.length === width ? fields : Array.from({ length: width }, (_, i) => fields[i] ?? '');
      return JSON.stringify(cells).slice(0, -1);
    },
    result(result: RowResult) {
      // A row's cells past the header go after its status (result.trailing), where they shift no column.
      let tail = '';
      for (const cell of result.cells) tail += `,${JSON.stringify(cell)}`;
      tail += `,${JSON.stringify(result.status)}`;
      for (const field of result.trailing ?? []) tail += `,${JSON.stringify(field)}`;
      return `${tail}]\n`;
    },
    finish: (lines, target, extras) =>
      input
        ? rewriteWorkbook(input, lines, target, extras)
        : writeWorkbook(lines, target, extras, 'Enriched'),
    async isOurs(path) {
      let header: readonly string[];
      try {
        // The enriched sheet: the input's sheet of a workbook, the only one of another input's.
        const source = await openXlsxSource(path, (await stat(path)).size, shape.sheet);
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
  // Inline strings (no shared-strings table held in memory to the end); no styles: every cell is text.
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: file,
    useSharedStrings: false,
    useStyles: false,
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
      const cells = JSON.parse(line) as string[];
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
      const row: string[] = [
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

/** A row of text cells (an empty one left empty): a CSV's or JSON Lines' fields, the output's columns. */
function writeRow(row: Row, cells: readonly (string | null)[]): void {
  cells.forEach((cell, i) => {
    if (cell === null || cell === '') return;
    row.getCell(i + 1).value = cell;
  });
  row.commit();
}
