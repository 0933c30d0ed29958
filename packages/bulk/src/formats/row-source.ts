// Where a run's rows come from. Each kind of file has its own source (csv-source.ts,
// jsonl-source.ts, xlsx-source.ts): it reads the file as a stream of records, each a row's fields
// as text in the header's order, and says what it found. A run plans, sends and writes those
// records the same whatever the file; a new kind of file is a new source (opened by open-source.ts)
// and a new format in row-format.ts.
import type { CsvLayout, LayoutChoice } from './csv-layout.js';
import type { FileKind } from './file-kind.js';

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
