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
//
// The steps: the zip directory checked (openXlsxSource), the workbook opened (OpenWorkbook.open),
// the sheet found (OpenWorkbook.sheet), its header read and its rows batched (SheetRows).
import { createReadStream, type ReadStream } from 'node:fs';
import type { Row, stream } from 'exceljs';
import { BulkError } from '../run/bulk-error.js';
import { finishWalk, type Part, prepare, whenBroken } from './exceljs-reading.js';
import type { RowBatch, RowSource } from './row-source.js';
import { fieldsOf, type TypedCell, textOf, typedCells } from './xlsx-cells.js';
import { rememberXlsxInput } from './xlsx-input.js';
import { readZipDirectoryAt, type ZipEntry } from './zip-file.js';
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
/** A row that holds a value: its number in the sheet and its cells. */
type SheetRow = { readonly number: number; readonly cells: TypedCell[] };

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
  const book = await OpenWorkbook.open(path, entries);
  const chosen = await book.sheet(sheet);
  const sheetName = chosen.name;
  // The chosen sheet's part (see prepare), taken before exceljs moves on.
  const part = book.part;
  const rows = new SheetRows(book, chosen, sizeBytes, part);
  const headerRow = await rows.header();
  if (headerRow === undefined) {
    book.close();
    throw new BulkError(
      `${path}: sheet "${sheetName}" is empty: it needs a header row naming its columns. Nothing was sent.`,
    );
  }
  const header = headerRow.cells.map(textOf);
  // Every sheet exceljs hands out went through prepare(), which named its part after the number
  // exceljs found in its name; an .xlsx output copies the workbook with that part enriched.
  if (part === undefined || !entries.some((entry) => entry.name === part.name)) {
    book.close();
    throw new BulkError(notReadable(path, `its sheet "${sheetName}" is not a part its zip directory lists`));
  }
  const width = header.length;
  rememberXlsxInput(header, { path, entries, sheetPart: part.name, headerRow: headerRow.number, width });
  rows.startAfter(headerRow.number, width);
  return {
    kind: 'xlsx',
    header,
    sheet: sheetName,
    found: book.found(sheetName),
    layout: undefined,
    sizeBytes,
    nextBatch: () => rows.nextBatch(),
    close: () => book.close(),
  };
}

/** A workbook opened with exceljs's streaming reader, and closed (its temp files too) once. */
class OpenWorkbook {
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly file: ReadStream,
    private readonly reader: WorkbookReader,
    private readonly parts: { current: Part | undefined },
    private readonly sheets: AsyncIterator<WorksheetReader>,
    /** Waits on exceljs, failing when the file or its zip breaks (exceljs-reading.ts). */
    readonly unlessBroken: <T>(waited: Promise<T>) => Promise<T>,
  ) {}

  static async open(path: string, entries: readonly ZipEntry[]): Promise<OpenWorkbook> {
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
    return new OpenWorkbook(path, file, reader, parts, sheets, unlessBroken);
  }

  /** The part of the sheet exceljs is reading now. */
  get part(): Part | undefined {
    return this.parts.current;
  }

  /** Whether the workbook counts dates from 1904 (a Mac's old default). */
  get date1904(): boolean {
    const properties = (this.reader as unknown as { properties?: { model?: { date1904?: boolean } } })
      .properties;
    return Boolean(properties?.model?.date1904);
  }

  /** The sheet asked for (any case), else the first in the tab order; refused when there is none. */
  async sheet(wanted: string | undefined): Promise<WorksheetReader> {
    const seen: string[] = [];
    try {
      for (;;) {
        const next = await this.unlessBroken(this.sheets.next());
        if (next.done) break;
        const worksheet = next.value;
        seen.push(worksheet.name);
        const names = sheetNames(this.reader);
        if (wanted !== undefined && names.length > 0 && !names.some((name) => same(name, wanted))) {
          throw noSuchSheet(this.path, wanted, names);
        }
        if (same(worksheet.name, wanted ?? names[0] ?? worksheet.name)) return worksheet;
        // Not this one: its temp file is closed unread.
        this.parts.current?.destroy();
      }
    } catch (error) {
      this.fail(error);
    }
    this.close();
    const names = sheetNames(this.reader);
    if (wanted !== undefined && (names.length > 0 || seen.length > 0)) {
      throw noSuchSheet(this.path, wanted, names.length > 0 ? names : seen);
    }
    throw new BulkError(
      `${this.path} holds no worksheet: it is not an Excel workbook, or it is damaged. Nothing was sent.`,
    );
  }

  /** `Excel workbook, sheet "Leads" (1 of 2)`. */
  found(sheetName: string): string {
    const names = sheetNames(this.reader);
    const position = names.findIndex((name) => same(name, sheetName));
    return position >= 0
      ? `Excel workbook, sheet "${sheetName}" (${position + 1} of ${names.length})`
      : `Excel workbook, sheet "${sheetName}"`;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.parts.current?.destroy();
    this.file.destroy();
    void finishWalk(this.sheets, this.parts);
  }

  /** Closes, then throws: a BulkError as it is, anything else in words (`after`: the last row read). */
  fail(error: unknown, after?: number): never {
    this.close();
    throw error instanceof BulkError ? error : unreadable(this.path, error, after);
  }
}

/**
 * The chosen sheet's rows in batches, by the sheet's row numbers: a row missing between two rows is
 * a blank row; empty rows after the last row with a value are not rows.
 */
class SheetRows {
  private readonly rows: AsyncIterator<Row>;
  private readonly date1904: boolean;
  private ahead: SheetRow | undefined;
  private expected = 0;
  private width = 0;
  private blankFields: string[] = [];
  private ended = false;

  constructor(
    private readonly book: OpenWorkbook,
    sheet: WorksheetReader,
    private readonly sizeBytes: number,
    private readonly part: Part | undefined,
  ) {
    this.rows = sheet[Symbol.asyncIterator]() as AsyncIterator<Row>;
    this.date1904 = book.date1904;
  }

  /** The first row that holds a value, or undefined for an empty sheet. */
  async header(): Promise<SheetRow | undefined> {
    try {
      return await this.nextRow();
    } catch (error) {
      return this.book.fail(error);
    }
  }

  /** The rows after the header's, each as wide as the header. */
  startAfter(headerRow: number, width: number): void {
    this.expected = headerRow + 1;
    this.width = width;
    this.blankFields = new Array<string>(width).fill('');
  }

  async nextBatch(): Promise<RowBatch | undefined> {
    const records: string[][] = [];
    const originals: string[] = [];
    const firstRow = this.expected;
    try {
      while (records.length < BATCH_ROWS) {
        this.ahead ??= await this.nextRow();
        const ahead = this.ahead;
        if (ahead === undefined) {
          this.ended = true;
          break;
        }
        // Excel writes a sheet's rows in order; the output finds each row by its number.
        if (ahead.number < this.expected) {
          throw new BulkError(
            `${this.book.path} breaks off after row ${this.expected - 1}: its row ${ahead.number} comes after row ${this.expected - 1}, out of order.`,
          );
        }
        records.push(ahead.number > this.expected ? this.blankFields : fieldsOf(ahead.cells, this.width));
        if (ahead.number === this.expected) this.ahead = undefined;
        originals.push(String(this.expected));
        this.expected++;
      }
    } catch (error) {
      this.book.fail(error, this.expected - 1);
    }
    if (records.length === 0) return undefined;
    return { records, originals, firstRow, bytes: this.bytes() };
  }

  /** The next row that holds a value (empty rows are gaps, filled in only before a later row). */
  private async nextRow(): Promise<SheetRow | undefined> {
    for (;;) {
      const next = await this.book.unlessBroken(this.rows.next());
      if (next.done) return undefined;
      const cells = typedCells(next.value, this.date1904);
      if (cells.length > 0) return { number: next.value.number, cells };
    }
  }

  /** The share of the file read so far: the sheet is read from its temp file (see prepare). */
  private bytes(): number {
    const { part, sizeBytes } = this;
    if (this.ended) return sizeBytes;
    if (part && part.total > 0) return Math.min(sizeBytes, Math.round((sizeBytes * part.read) / part.total));
    return sizeBytes;
  }
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
