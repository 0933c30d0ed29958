// Reading a CSV as a stream of rows, and planning each row against the operation: which column
// feeds which field, and whether the row is blank, invalid (and why), or a request (and which).
import { createReadStream, statSync } from 'node:fs';
import { type Readable, Transform } from 'node:stream';
import {
  type CleanInput,
  type ColumnMapping,
  mapColumns,
  type Operation,
  planRow,
  rowInput,
  validate,
} from '@enrich/core';
import { parse } from 'csv-parse';
import { BulkError } from './bulk-error.js';
import { type CsvLayout, decodeWindows1252, type LayoutChoice, layoutOf } from './csv-layout.js';

/** Rows read together: as many as the parser had ready (no promise per row). */
export interface CsvBatch {
  readonly records: string[][];
  /** The first record's row number as a spreadsheet shows it: the header is row 1. */
  readonly firstRow: number;
  /** Bytes of the file read so far (a little ahead of these rows), for progress. */
  readonly bytes: number;
}

export interface OpenedCsv {
  readonly header: readonly string[];
  readonly layout: CsvLayout;
  readonly mapping: ColumnMapping;
  readonly sizeBytes: number;
  /** The next rows, or undefined at the end of the file. */
  nextBatch(): Promise<CsvBatch | undefined>;
  close(): void;
}

/** Opens the file, reads the header and maps its columns; stops (before anything is spent) if it cannot. */
export async function openCsv(
  op: Operation,
  path: string,
  overrides: Readonly<Record<string, string>>,
  choice: LayoutChoice = {},
): Promise<OpenedCsv> {
  let sizeBytes: number;
  try {
    sizeBytes = statSync(path).size;
  } catch (error) {
    throw new BulkError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  const layout = layoutOf(path, choice);
  const file = createReadStream(path);
  const parser = textOf(file, layout).pipe(
    // Blank lines are kept as blank rows: in a one-column file they are the empty cells, and every
    // line in gets its line out. (No `info` option: it costs more than the parsing itself.)
    parse({ bom: true, delimiter: layout.delimiter, relax_column_count: true, skip_empty_lines: false }),
  );
  const source = batches(parser, () => file.bytesRead);
  let first: CsvBatch | undefined;
  try {
    first = await source.next(1);
  } catch (error) {
    parser.destroy();
    throw new BulkError(`${path} is not a readable CSV: ${(error as Error).message}`);
  }
  const header = first?.records[0];
  if (header === undefined) {
    throw new BulkError(`${path} is empty: it needs a header row naming its columns`);
  }
  const mapping = mapColumns(op, header, overrides);
  if (mapping.problem) {
    parser.destroy();
    throw new BulkError(
      `${path}: ${mapping.problem}. Nothing was sent. Name the column with --map Field=Column (columns: ${header.join(', ')})`,
    );
  }
  let row = 1;
  return {
    header,
    layout,
    mapping,
    sizeBytes,
    async nextBatch() {
      let batch: CsvBatch | undefined;
      try {
        batch = await source.next(BATCH_ROWS);
      } catch (error) {
        throw new BulkError(`${path} is not a readable CSV: ${(error as Error).message}`);
      }
      if (batch === undefined) return undefined;
      const firstRow = row + 1;
      row += batch.records.length;
      return { records: batch.records, firstRow, bytes: batch.bytes };
    },
    close: () => parser.destroy(),
  };
}

// Small enough that a batch's work (about a millisecond) does not keep answers waiting long: the
// run takes them between batches.
const BATCH_ROWS = 256;

/**
 * Reads records off the parser in batches: whatever it has ready, up to `max`, waiting only when it
 * has none. (An async iterator costs a promise and a turn of the event loop per row.)
 */
function batches(parser: Readable, bytes: () => number) {
  let ended = false;
  let failed: unknown;
  parser.on('end', () => {
    ended = true;
  });
  parser.on('error', (error) => {
    failed ??= error;
  });
  const ready = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        parser.off('readable', done);
        parser.off('end', done);
        parser.off('error', done);
        resolve();
      };
      parser.on('readable', done);
      parser.on('end', done);
      parser.on('error', done);
    });
  return {
    async next(max: number): Promise<CsvBatch | undefined> {
      for (;;) {
        if (failed) throw failed;
        const records: string[][] = [];
        while (records.length < max) {
          const record = parser.read() as string[] | null;
          if (record === null) break;
          records.push(record);
        }
        if (records.length > 0) return { records, firstRow: 0, bytes: bytes() };
        if (ended) return undefined;
        await ready();
      }
    },
  };
}

// Spellings remembered: the first this many, kept for the whole run. (Forgetting the oldest to make
// room, as before, found nothing at all in a file with more spellings than room that repeats them
// in turn, such as one that writes each phone four ways: every spelling was forgotten just before
// it came round again. Keeping the first ones finds those every time.)
const PLAN_MEMORY = 20_000;

export type PlannedRow =
  | { readonly kind: 'blank'; readonly message: string }
  | { readonly kind: 'invalid'; readonly message: string }
  | { readonly kind: 'request'; readonly key: string; readonly input: CleanInput };

/** Plans rows of a file with this header: blank, invalid (with the reason) or a request. */
export function rowPlanner(op: Operation, header: readonly string[], mapping: ColumnMapping) {
  const empty = validate(op, {});
  const blankMessage = empty.ok ? 'blank row' : `blank row (${empty.message})`;
  const columns = Object.values(mapping.fields);
  // Files repeat values (that is what deduplication is for); checking each spelling once saves
  // most of the per-row work on a large file.
  const planned = new Map<string, PlannedRow>();
  return (fields: readonly string[]): PlannedRow => {
    if (fields.length > header.length) {
      return {
        kind: 'invalid',
        message: `the row has ${fields.length} fields but the header has ${header.length}; the extra fields are not written`,
      };
    }
    let values = columns.length === 1 ? (fields[columns[0] as number] ?? '') : '';
    if (columns.length > 1) for (const index of columns) values += `${fields[index] ?? ''}\u0000`;
    const known = planned.get(values);
    if (known) return known;
    const plan = planRow(op, rowInput(mapping, fields));
    const result: PlannedRow =
      plan.kind === 'empty'
        ? { kind: 'blank', message: blankMessage }
        : plan.kind === 'invalid'
          ? { kind: 'invalid', message: plan.message }
          : { kind: 'request', key: plan.key, input: plan.input as CleanInput };
    if (planned.size < PLAN_MEMORY) planned.set(values, result);
    return result;
  };
}

/**
 * The file as the parser reads it: UTF-8 bytes as they are (the parser drops a BOM), any other
 * encoding decoded to text first, so that every character reaches the output as it was.
 */
function textOf(file: Readable, layout: CsvLayout): Readable {
  if (layout.encoding === 'utf-8') return file;
  const decoder = layout.encoding === 'windows-1252' ? undefined : new TextDecoder(layout.encoding);
  return file.pipe(
    new Transform({
      readableObjectMode: false,
      decodeStrings: true,
      transform(chunk: Buffer, _encoding, done) {
        done(null, decoder ? decoder.decode(chunk, { stream: true }) : decodeWindows1252(chunk));
      },
      flush(done) {
        done(null, decoder ? decoder.decode() : '');
      },
    }),
  );
}

/** The header row of a CSV file (for a client that lets the user edit the column mapping first). */
export async function readCsvHeader(path: string, choice: LayoutChoice = {}): Promise<string[]> {
  const layout = layoutOf(path, choice);
  const parser = textOf(createReadStream(path), layout).pipe(
    parse({ bom: true, delimiter: layout.delimiter, relax_column_count: true, to_line: 1 }),
  );
  try {
    for await (const record of parser as AsyncIterable<string[]>) return record;
  } catch (error) {
    throw new BulkError(`${path} is not a readable CSV: ${(error as Error).message}`);
  } finally {
    parser.destroy();
  }
  throw new BulkError(`${path} is empty: it needs a header row naming its columns`);
}
