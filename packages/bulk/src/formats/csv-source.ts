// A CSV as a row source: its layout found first (csv-layout.ts: encoding, separator, line end),
// then read as a stream of records, in batches of what the parser has ready.
import { createReadStream } from 'node:fs';
import { type Readable, Transform } from 'node:stream';
import { parse } from 'csv-parse';
import { BulkError } from '../run/bulk-error.js';
import { type CsvLayout, decodeWindows1252, type LayoutChoice, layoutOf, layoutText } from './csv-layout.js';
import type { RowBatch, RowSource } from './row-source.js';

/** Opens the file and reads its header; stops (before anything is spent) if it cannot. */
export async function openCsvSource(
  path: string,
  sizeBytes: number,
  choice: LayoutChoice,
): Promise<RowSource> {
  const layout = layoutOf(path, choice);
  const file = createReadStream(path);
  const parser = textOf(file, layout).pipe(
    // Blank lines are kept as blank rows: in a one-column file they are the empty cells, and every
    // line in gets its line out. (No `info` option: it costs more than the parsing itself.)
    parse({ bom: true, delimiter: layout.delimiter, relax_column_count: true, skip_empty_lines: false }),
  );
  const source = batches(parser, () => file.bytesRead);
  // Destroying the parser does not reach back up the pipe: the file is let go of itself.
  const close = () => {
    parser.destroy();
    file.destroy();
  };
  let first: RowBatch | undefined;
  try {
    first = await source.next(1);
  } catch (error) {
    close();
    throw new BulkError(`${path} is not a readable CSV: ${(error as Error).message}`);
  }
  const header = first?.records[0];
  if (header === undefined) {
    close();
    throw new BulkError(`${path} is empty: it needs a header row naming its columns`);
  }
  let row = 1;
  return {
    kind: 'csv',
    header,
    found: layoutText(layout),
    layout,
    sizeBytes,
    async nextBatch() {
      let batch: RowBatch | undefined;
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
    close,
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
    async next(max: number): Promise<RowBatch | undefined> {
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
