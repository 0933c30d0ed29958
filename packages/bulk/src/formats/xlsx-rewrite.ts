// An .xlsx output of an .xlsx input: the input workbook itself, with the output columns added to the
// sheet that was read. Every part of the zip but that sheet's XML is copied as it was packed (the
// other sheets, the shared strings that hold its text and rich text, the styles, the hyperlinks'
// targets, the defined names, pictures, comments, macros: xlsx-content-types.ts says when an
// output's extension cannot hold them), and in that sheet's XML each row's cells
// are copied as the text they were: a value keeps its type and style, a formula its text and
// cached value (a shared formula filled down stays shared), a rich text its runs, a hyperlink its
// link; merged cells, column widths, frozen panes and the rest around the rows are kept as they
// are. The output's cells go after the header's columns of each row, as inline text (no shared
// strings table to rebuild), the extra columns before status and a long row's own cells past the
// header after it, as every format writes them.
//
// The rows' output cells come from the lines OutputFile wrote (<out>.partial): the first holds the
// header's row number and the output's names, each next one a row's number and its cells (see
// xlsxFormat). The input is read again from its zip directory here, at the end: it must be the file
// that was read (its directory, with each part's CRC, as it was), or the output is not written.
import { createReadStream } from 'node:fs';
import { type FileHandle, open, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { BulkError } from '../run/bulk-error.js';
import type { ExtraRows } from '../run/extra-columns.js';
import { changesFor, type PartChanges } from './xlsx-content-types.js';
import type { XlsxInput } from './xlsx-input.js';
import { columnLetters, type SheetRow, sheetPieces, sheetRow } from './xlsx-sheet-xml.js';
import { inflatedEntry, readZipDirectory, type ZipEntry } from './zip-file.js';
import { ZipWriter } from './zip-writer.js';

/** A line's cells: text for the output's columns and status (numbers and booleans as they are). */
type OutputCell = string | number | boolean | null;

/** Writes at `target` the input workbook with the output columns of `lines` added to its sheet. */
export async function rewriteWorkbook(
  input: XlsxInput,
  lines: string,
  target: string,
  extras: ExtraRows | undefined,
): Promise<void> {
  const changed = () =>
    new BulkError(
      `${input.path} changed while it was being enriched, so its enriched copy is not written. Run again: the answers already bought are in the answer cache and are not paid for twice.`,
    );
  const from = await open(input.path, 'r').catch(() => {
    throw changed(); // gone, or replaced by something that cannot be read
  });
  try {
    const entries = await readZipDirectory(from);
    if (entries === undefined || !sameEntries(entries, input.entries)) throw changed();
    try {
      const changes = await changesFor(outputName(target), entries, async (name) => {
        const chunks: Buffer[] = [];
        for await (const chunk of inflatedEntry(from, entries.find((e) => e.name === name) as ZipEntry)) {
          chunks.push(chunk);
        }
        return Buffer.concat(chunks).toString('utf8');
      });
      await writeCopy(from, entries, changes, input.sheetPart, target, async (zip, entry) => {
        const rows = outputRows(lines, extras);
        try {
          await zip.deflate(entry.name, splicedSheet(decoded(inflatedEntry(from, entry)), rows, input));
        } finally {
          await rows.return(undefined);
        }
      });
    } catch (error) {
      // No half-written workbook is left behind; the run's failure says why, in words.
      await rm(target, { force: true });
      throw new BulkError(
        `Cannot write ${outputName(target)}: ${whyNot(error)}. The answers bought are in the answer cache: a rerun pays for none of them again.`,
      );
    }
  } finally {
    await from.close();
  }
}

/** Every part of the input in its order: left out, changed, copied, or (the sheet) spliced. */
async function writeCopy(
  from: FileHandle,
  entries: readonly ZipEntry[],
  changes: PartChanges,
  sheetPart: string,
  target: string,
  splice: (zip: ZipWriter, entry: ZipEntry) => Promise<void>,
): Promise<void> {
  const out = await open(target, 'w');
  try {
    const zip = new ZipWriter(out);
    for (const entry of entries) {
      const changed = changes.changed.get(entry.name);
      if (changes.leftOut.has(entry.name)) continue;
      if (changed !== undefined) await zip.deflate(entry.name, textOf(changed));
      else if (entry.name === sheetPart) await splice(zip, entry);
      else await zip.copy(from, entry);
    }
    await zip.close();
  } finally {
    await out.close();
  }
}

/** A failure writing the workbook, in words (the messages of this engine's readers name no cell). */
function whyNot(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC') return 'the disk is full';
  if (code === 'EDQUOT') return 'the disk quota is used up';
  return error instanceof Error ? error.message : String(error);
}

/**
 * The output's own name: OutputFile has the finished workbook written at <out>.merged.partial, and
 * renames it over <out> once written. Its extension says whether it may hold macros.
 */
function outputName(target: string): string {
  return target.replace(/\.merged\.partial$/, '');
}

async function* textOf(text: string): AsyncGenerator<string> {
  yield text;
}

function sameEntries(now: readonly ZipEntry[], then: readonly ZipEntry[]): boolean {
  return (
    now.length === then.length &&
    now.every((entry, i) => {
      const was = then[i] as ZipEntry;
      return (
        entry.name === was.name &&
        entry.crc === was.crc &&
        entry.size === was.size &&
        entry.compressedSize === was.compressedSize &&
        entry.localOffset === was.localOffset &&
        entry.method === was.method
      );
    })
  );
}

async function* decoded(chunks: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of chunks) yield decoder.decode(chunk, { stream: true });
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

/** An output row: the sheet's row number, and the cells to add after the header's columns. */
interface OutputRow {
  readonly number: number;
  readonly cells: readonly OutputCell[];
}

/** The lines as rows: the header's first, then one per row, the extra columns put before status. */
async function* outputRows(path: string, extras: ExtraRows | undefined): AsyncGenerator<OutputRow> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  const names = extras?.names ?? [];
  let statusAt: number | undefined;
  let index = 0;
  try {
    for await (const line of lines) {
      const [number, ...cells] = JSON.parse(line) as [number, ...OutputCell[]];
      // Status is last in the header's line, and in every row's before its own cells past the header.
      if (statusAt === undefined) {
        statusAt = cells.length - 1;
        yield {
          number,
          cells: [...cells.slice(0, statusAt), ...(extras?.headerNames ?? []), ...cells.slice(statusAt)],
        };
        continue;
      }
      const extra = (await extras?.at(index)) ?? {};
      index++;
      yield {
        number,
        cells: [
          ...cells.slice(0, statusAt),
          ...names.map((name) => extra[name] ?? ''),
          ...cells.slice(statusAt),
        ],
      };
    }
  } finally {
    lines.close();
  }
}

/**
 * The sheet's XML with the output rows' cells added: rows are matched by number; a row of the
 * sheet no output row is for (an empty row above the header, formatted rows after the last) is
 * copied as it is, and an output row the sheet has no row for (a blank row between two) is added.
 */
async function* splicedSheet(
  xml: AsyncIterable<string>,
  rows: AsyncGenerator<OutputRow>,
  input: XlsxInput,
): AsyncGenerator<string> {
  let expected = input.headerRow;
  const nextRow = async (): Promise<OutputRow | undefined> => {
    const next = await rows.next();
    if (next.done) return undefined;
    // The lines are the rows from the header's on, one each: anything else is not this sheet's.
    if (next.value.number !== expected) {
      throw new Error(
        `the enriched rows do not follow the sheet's (row ${next.value.number} for ${expected})`,
      );
    }
    expected++;
    return next.value;
  };
  let pending = await nextRow();
  let previous = 0;
  for await (const piece of sheetPieces(xml)) {
    if (piece.kind === 'before' || piece.kind === 'other') {
      yield piece.text;
    } else if (piece.kind === 'row') {
      const row = sheetRow(piece.xml, previous);
      if (row.number <= previous)
        throw new Error(`the sheet's row ${row.number} comes after row ${previous}`);
      previous = row.number;
      while (pending !== undefined && pending.number < row.number) {
        yield addedRow(pending, input.width);
        pending = await nextRow();
      }
      if (pending?.number === row.number) {
        yield splicedRow(row, pending, input.width);
        pending = await nextRow();
      } else {
        yield piece.xml;
      }
    } else {
      while (pending !== undefined) {
        yield addedRow(pending, input.width);
        pending = await nextRow();
      }
      yield piece.text;
    }
  }
}

/**
 * A row of the sheet with the output's cells after the header's columns. Its own cells past them
 * (a long row's, whose text the output row carries after status; formatted empty cells) give way
 * to the output's.
 */
function splicedRow(row: SheetRow, output: OutputRow, width: number): string {
  let xml = `${row.open}>`;
  for (const cell of row.cells) if (cell.column <= width) xml += cell.xml;
  return `${xml}${outputCells(output, width)}${row.rest}</row>`;
}

function addedRow(output: OutputRow, width: number): string {
  return `<row r="${output.number}">${outputCells(output, width)}</row>`;
}

function outputCells(output: OutputRow, width: number): string {
  let xml = '';
  output.cells.forEach((cell, i) => {
    if (cell === null || cell === '') return;
    const ref = `${columnLetters(width + i + 1)}${output.number}`;
    if (typeof cell === 'number') xml += `<c r="${ref}"><v>${cell}</v></c>`;
    else if (typeof cell === 'boolean') xml += `<c r="${ref}" t="b"><v>${cell ? 1 : 0}</v></c>`;
    else xml += `<c r="${ref}" t="inlineStr"><is>${textElement(cell)}</is></c>`;
  });
  return xml;
}

/**
 * Text as a <t> element. XML cannot hold most control characters, even escaped: they are left out,
 * as exceljs leaves them out. Excel reads "_x0041_" in a cell's text as the character it names, so
 * such text of the service's is escaped as Excel escapes it ("_x005F_" for its underscore).
 */
function textElement(text: string): string {
  // Most text needs none of it: the same answers fill many rows, and this ran for every cell.
  if (!NEEDS_CARE.test(text)) return `<t>${text}</t>`;
  const escaped = text
    .replace(LEFT_OUT, '')
    .replace(/_(x[0-9a-fA-F]{4}_)/g, '_x005F_$1')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
  // Spaces at either end, or line breaks, are kept only when the element says so.
  const preserve = /^\s|\s$|\n/.test(escaped) ? ' xml:space="preserve"' : '';
  return `<t${preserve}>${escaped}</t>`;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters left out
const LEFT_OUT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffe\uffff]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: text that needs escaping or keeping of its spaces
const NEEDS_CARE = /[\u0000-\u001f\u007f\ufffe\uffff&<>_]|^\s|\s$/;
