// How rows are written into the output. Each kind of file has its own format (csv-format.ts,
// jsonl-format.ts, xlsx-format.ts). A format renders text, which OutputFile writes line by line to
// <out>.partial in file order: a row's own part (its fields, or its original where the input is of
// the same kind), then its result's part (rendered once and shared by every row with that result).
// Where the lines are not the file itself (a workbook), or answers brought fields the description
// does not list (--all-extras), the format's finish() writes the file from the lines at the end.

import type { ExtraRows } from '../run/extra-columns.js';
import type { RowResult } from '../run/row-result.js';
import type { CsvLayout } from './csv-layout.js';
import type { FileKind } from './file-kind.js';

export interface RowFormat {
  readonly kind: FileKind;
  /** Whether the lines written are the finished file when no extra columns are added. */
  readonly linesAreTheFile: boolean;
  /** The opening of the output: a BOM, the header line (nothing for JSON Lines). */
  header(): string;
  /** A row's own part: its fields (fitted to the header), or its original text when given. */
  fields(fields: readonly string[], original: string | undefined): string;
  /** A result's part, to the end of the line (a long row's fields past the header after status). */
  result(result: RowResult): string;
  /** Writes the finished output at `target` from the lines at `lines`, extra columns added if any. */
  finish(lines: string, target: string, extras: ExtraRows | undefined): Promise<void>;
  /** Whether an existing file at `path` is an output of ours (replaced without asking). */
  isOurs(path: string): Promise<boolean>;
}

/** What a format needs to know of the run: the input's columns and the output's. */
export interface OutputShape {
  /** The input's kind: a row's original is used only by a format of the same kind. */
  readonly inputKind: FileKind;
  readonly inputHeader: readonly string[];
  /** The input's columns, then the output columns, then status (see outputHeader). */
  readonly header: readonly string[];
  /** A CSV input's layout (the CSV output keeps its BOM, separator and line end). */
  readonly layout: CsvLayout | undefined;
  /** A workbook input's sheet: a workbook output's sheet is named so. */
  readonly sheet?: string | undefined;
}
