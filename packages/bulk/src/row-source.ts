// Where a run's rows come from. Each kind of file has its own source (csv-source.ts,
// jsonl-source.ts, xlsx-source.ts): it reads the file as a stream of records, each a row's fields
// as text in the header's order, and says what it found. A run plans, sends and writes those
// records the same whatever the file; a new kind of file is a new source here and a new format in
// row-format.ts.
import { statSync } from 'node:fs';
import { BulkError } from './bulk-error.js';
import type { CsvLayout, LayoutChoice } from './csv-layout.js';
import { openCsvSource } from './csv-source.js';
import { type FileKind, fileKindOf } from './file-kind.js';
import { openJsonlSource } from './jsonl-source.js';
import { openXlsxSource } from './xlsx-source.js';

/** Rows read together: as many as the source had ready (no promise per row). */
export interface RowBatch {
  readonly records: string[][];
  /**
   * Each record as the input's own format holds it, where an output of that format is written from
   * it rather than from the text fields (a JSON Lines line; a workbook row's typed cells). Parallel
   * to `records`; undefined for CSV, whose fields are its text.
   */
  readonly originals?: readonly string[] | undefined;
  /** The first record's row number as a spreadsheet shows it: the header is row 1. */
  readonly firstRow: number;
  /** Bytes of the file read so far (a little ahead of these rows), for progress. */
  readonly bytes: number;
}

export interface RowSource {
  readonly kind: FileKind;
  readonly header: readonly string[];
  /** What was found in the file, in words for a summary ("JSON Lines", "sheet Leads of 3"). */
  readonly found: string;
  /** A CSV's encoding, separator and line end (the output keeps them); undefined for the others. */
  readonly layout: CsvLayout | undefined;
  /** A workbook's sheet read (a workbook output's sheet takes its name). */
  readonly sheet?: string | undefined;
  readonly sizeBytes: number;
  /** The next rows, or undefined at the end of the file. */
  nextBatch(): Promise<RowBatch | undefined>;
  close(): void;
}

/** What the user forced: a CSV's encoding and separator, a workbook's sheet. */
export interface SourceChoice extends LayoutChoice {
  readonly sheet?: string | undefined;
}

/**
 * Opens the input and reads its header; stops, before anything is spent, if the file cannot be read
 * or is not what its name says.
 */
export async function openSource(path: string, choice: SourceChoice = {}): Promise<RowSource> {
  let sizeBytes: number;
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) throw new Error('it is a directory');
    sizeBytes = stat.size;
  } catch (error) {
    throw new BulkError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  const kind = fileKindOf(path);
  switch (kind) {
    case 'xlsx':
      return openXlsxSource(path, sizeBytes, choice.sheet);
    case 'jsonl':
      return openJsonlSource(path, sizeBytes);
    default:
      return openCsvSource(path, sizeBytes, choice);
  }
}

/** The header row of an input (for a client that lets the user edit the column mapping first). */
export async function readHeader(path: string, choice: SourceChoice = {}): Promise<string[]> {
  const source = await openSource(path, choice);
  source.close();
  return [...source.header];
}
