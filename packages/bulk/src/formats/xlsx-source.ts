// An Excel workbook (.xlsx) as a row source, streamed with exceljs's WorkbookReader: the workbook
// is never loaded whole, so a sheet of a million rows takes the memory of a batch (plus the
// workbook's shared strings, which Excel keeps in one table that every row points into).
//
// Before exceljs opens it, the workbook's zip directory is read: a zip cut short is refused, and so
// is one whose parts unpack past the limits of zip-limits.ts (a zip bomb), before anything is
// unpacked or sent.
//
// One sheet is read: the one the user names, else the first. Its first row is the header. Each
// row is its fields as text, which plan the requests (a phone typed as a number reads
// "5551234567", a date "2024-03-05"), and its original: its row number, by which an .xlsx output
// finds the row in the workbook, which it copies with every cell as it was (xlsx-rewrite.ts; the
// source remembers the workbook for it, xlsx-input.ts). Row numbers are the sheet's: a row
// missing between two rows is a blank row, so "row 12" is the row Excel shows as 12; empty rows
// after the last row with a value are not rows (Excel keeps formatted empty rows in a sheet).
// How a cell reads is in xlsx-cells.ts; what keeps exceljs's reader safe, in exceljs-reading.ts.
//
// exceljs is imported only when a workbook is read or written: a CSV run never loads it (the
// bundles put it in a chunk of its own).
import { createReadStream } from 'node:fs';
import type { Row, stream } from 'exceljs';
import { BulkError } from '../run/bulk-error.js';
import { finishWalk, prepare, whenBroken } from './exceljs-reading.js';
import type { RowBatch, RowSource } from './row-source.js';
import { fieldsOf, type TypedCell, textOf, typedCells } from './xlsx-cells.js';
import { rememberXlsxInput } from './xlsx-input.js';
import { readZipDirectoryAt } from './zip-file.js';
import { checkZipLimits, inflatedTooFar, inflationLimits } from './zip-limits.js';

// As many rows as a CSV batch: a batch's work stays short enough not to keep answers waiting.
const BATCH_ROWS = 256;

/** A workbook source also says which sheet it reads (an .xlsx output takes its name). */
interface XlsxSource extends RowSource {
  readonly sheet: string;
}

type WorkbookReader = stream.xlsx.WorkbookReader;
// exceljs's types leave out the name a sheet's reader has.
type WorksheetReader = stream.xlsx.WorksheetReader & { readonly name: string };

/** The exceljs module, loaded on first use (CommonJS: its exports are the default import's). */
export async function loadExcel(): Promise<typeof import('exceljs')> {
  return (await import('exceljs')).default;
}

/** Opens the workbook, finds the sheet and reads its header; stops (before anything is spent) if it cannot. */
export async function openXlsxSource(path: string, sizeBytes: number, sheet?: string): Promise<XlsxSource> {
  // Before exceljs, which would leave copies of the sheets it met in the temp directory.
  const entries = await readZipDirectoryAt(path);
  if (entries === undefined) throw new BulkError(notReadable(path, DAMAGED_ZIP));
  checkZipLimits(path, entries);
  const ExcelJS = await loadExcel();
  const file = createReadStream(path);
  const unlessBroken = whenBroken(file, {
    limits: inflationLimits(entries),
    refuse: (part, limit) => inflatedTooFar(path, part, limit),
  });
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    // Styles say which numbers are dates (their number format); hyperlinks are read as their text.
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  const parts = prepare(reader);
  const sheets = reader[Symbol.asyncIterator]() as AsyncIterator<WorksheetReader>;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    parts.current?.destroy();
    file.destroy();
    void finishWalk(sheets, parts);
  };
  // `after`: the last row read, when the sheet breaks off after rows were read (and perhaps sent).
  const fail = (error: unknown, after?: number): never => {
    close();
    throw error instanceof BulkError ? error : unreadable(path, error, after);
  };

  let chosen: WorksheetReader | undefined;
  const seen: string[] = [];
  try {
    for (;;) {
      const next = await unlessBroken(sheets.next());
      if (next.done) break;
      const worksheet = next.value;
      seen.push(worksheet.name);
      const names = sheetNames(reader);
      if (sheet !== undefined && names.length > 0 && !names.some((name) => same(name, sheet))) {
        throw noSuchSheet(path, sheet, names);
      }
      const wanted = sheet ?? names[0] ?? worksheet.name;
      if (same(worksheet.name, wanted)) {
        chosen = worksheet;
        break;
      }
      // Not this one: its temp file is closed unread.
      parts.current?.destroy();
    }
  } catch (error) {
    fail(error);
  }
  if (chosen === undefined) {
    close();
    const names = sheetNames(reader);
    if (sheet !== undefined && (names.length > 0 || seen.length > 0)) {
      throw noSuchSheet(path, sheet, names.length > 0 ? names : seen);
    }
    throw new BulkError(
      `${path} holds no worksheet: it is not an Excel workbook, or it is damaged. Nothing was sent.`,
    );
  }

  const sheetName = chosen.name;
  const names = sheetNames(reader);
  const position = names.findIndex((name) => same(name, sheetName));
  const found =
    position >= 0
      ? `Excel workbook, sheet "${sheetName}" (${position + 1} of ${names.length})`
      : `Excel workbook, sheet "${sheetName}"`;
  const date1904 = Boolean(
    (reader as unknown as { properties?: { model?: { date1904?: boolean } } }).properties?.model?.date1904,
  );
  const part = parts.current;
  const rows = chosen[Symbol.asyncIterator]() as AsyncIterator<Row>;

  /** The next row that holds a value (empty rows are gaps, filled in only before a later row). */
  const nextRow = async (): Promise<{ number: number; cells: TypedCell[] } | undefined> => {
    for (;;) {
      const next = await unlessBroken(rows.next());
      if (next.done) return undefined;
      const cells = typedCells(next.value, date1904);
      if (cells.length > 0) return { number: next.value.number, cells };
    }
  };

  let headerRow: { number: number; cells: TypedCell[] } | undefined;
  try {
    headerRow = await nextRow();
  } catch (error) {
    fail(error);
  }
  if (headerRow === undefined) {
    close();
    throw new BulkError(
      `${path}: sheet "${sheetName}" is empty: it needs a header row naming its columns. Nothing was sent.`,
    );
  }
  const header = headerRow.cells.map(textOf);
  const width = header.length;
  const blankFields = header.map(() => '');
  // Every sheet exceljs hands out went through prepare(), which named its part after the number
  // exceljs found in its name; an .xlsx output copies the workbook with that part enriched.
  if (part === undefined || !entries.some((entry) => entry.name === part.name)) {
    close();
    throw new BulkError(notReadable(path, `its sheet "${sheetName}" is not a part its zip directory lists`));
  }
  rememberXlsxInput(header, { path, entries, sheetPart: part.name, headerRow: headerRow.number, width });

  let ahead: { number: number; cells: TypedCell[] } | undefined;
  let expected = headerRow.number + 1;
  let ended = false;
  const bytes = () => {
    if (ended) return sizeBytes;
    // The sheet is read from its temp file (see prepare): the share of that file read so far.
    if (part && part.total > 0) return Math.min(sizeBytes, Math.round((sizeBytes * part.read) / part.total));
    return sizeBytes;
  };

  return {
    kind: 'xlsx',
    header,
    sheet: sheetName,
    found,
    layout: undefined,
    sizeBytes,
    async nextBatch(): Promise<RowBatch | undefined> {
      const records: string[][] = [];
      const originals: string[] = [];
      const firstRow = expected;
      try {
        while (records.length < BATCH_ROWS) {
          ahead ??= await nextRow();
          if (ahead === undefined) {
            ended = true;
            break;
          }
          // Excel writes a sheet's rows in order; the output finds each row by its number.
          if (ahead.number < expected) {
            throw new BulkError(
              `${path} breaks off after row ${expected - 1}: its row ${ahead.number} comes after row ${expected - 1}, out of order.`,
            );
          }
          records.push(ahead.number > expected ? blankFields : fieldsOf(ahead.cells, width));
          if (ahead.number === expected) ahead = undefined;
          originals.push(String(expected));
          expected++;
        }
      } catch (error) {
        fail(error, expected - 1);
      }
      if (records.length === 0) return undefined;
      return { records, originals, firstRow, bytes: bytes() };
    },
    close,
  };
}

function same(a: string, b: string): boolean {
  // Excel's sheet names are unique regardless of case.
  return a.toLowerCase() === b.toLowerCase();
}

/** The workbook's sheet names in its tab order, once exceljs has read its list (else none). */
function sheetNames(reader: WorkbookReader): string[] {
  const model = (reader as unknown as { model?: { sheets?: { name: string }[] } }).model;
  return (model?.sheets ?? []).map((sheet) => sheet.name);
}

function noSuchSheet(path: string, sheet: string, names: readonly string[]): BulkError {
  const list = names.map((name) => `"${name}"`).join(', ');
  return new BulkError(`${path} has no sheet named "${sheet}". Nothing was sent. Its sheets: ${list}.`);
}

/**
 * What went wrong reading the workbook, in words: the messages of the zip and XML readers quote
 * the file's bytes, which are the user's data (and may be anything), so they are not shown.
 */
const DAMAGED_ZIP = 'its zip structure is damaged or cut short';

function notReadable(path: string, what: string): string {
  return `${path} is not a readable Excel workbook: ${what}. Nothing was sent.`;
}

function unreadable(path: string, error: unknown, after: number | undefined): BulkError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  // saxes starts its messages with the line and column; zlib's errors have a Z_ code, and the
  // unzipping stream's say FILE_ENDED (cut short) or quote the bytes it found (a bad signature).
  const what = /^\d+:\d+: /.test(message)
    ? 'a part of it is not well-formed XML'
    : (typeof code === 'string' && code.startsWith('Z_')) || /FILE_ENDED|signature/i.test(message)
      ? DAMAGED_ZIP
      : 'it could not be read';
  return after === undefined
    ? new BulkError(notReadable(path, what))
    : new BulkError(`${path} breaks off after row ${after}: ${what}.`);
}
