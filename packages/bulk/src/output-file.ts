// The output of a run, written to <out>.partial row by row in file order and renamed over <out>
// only when every row is in it. Rows are rendered to CSV text here and handed to the file in
// batches of about 64 KB (one write call per row would cost more CPU than the rest of the row's
// work); the key scrubber runs over each batch. A result's own columns are rendered once and reused
// by every row that shares the result (a file repeats its requests: that is what dedup is for).
import { once } from 'node:events';
import {
  closeSync,
  createWriteStream,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  type WriteStream,
} from 'node:fs';
import { finished } from 'node:stream/promises';
import { csvField, csvFields } from './csv-line.js';
import { ExtraColumns } from './extra-columns.js';
import type { RowResult } from './row-result.js';

const BATCH_CHARS = 64 * 1024;

export class OutputFile {
  readonly tempPath: string;
  /** The first error writing the file (disk full, say); nothing more is written after it. */
  error: Error | undefined;
  private readonly file: WriteStream;
  private readonly extras: ExtraColumns | undefined;
  private batch = '';
  private rowIndex = 0;
  private readonly rendered = new WeakMap<RowResult, string>();

  constructor(
    private readonly outPath: string,
    private readonly width: number,
    private readonly scrub: (text: string) => string,
    options: { allExtras: boolean; onError: (error: Error) => void },
  ) {
    this.tempPath = `${outPath}.partial`;
    this.file = createWriteStream(this.tempPath);
    this.file.on('error', (error) => {
      this.error ??= error;
      options.onError(error);
    });
    this.extras = options.allExtras
      ? new ExtraColumns(this.tempPath, (error) => this.file.destroy(error))
      : undefined;
  }

  writeHeader(header: readonly string[]): void {
    this.batch += `${csvFields(header)}\n`;
  }

  /**
   * One row: its input fields (fitted to the header's width; or already rendered by renderFields)
   * and its result's columns.
   */
  writeRow(fields: readonly string[] | string, result: RowResult): void {
    this.batch += typeof fields === 'string' ? fields : this.renderFields(fields);
    this.batch += this.renderResult(result);
    if (result.extra) this.extras?.add(this.rowIndex, result.extra, this.scrub);
    this.rowIndex++;
    if (this.batch.length >= BATCH_CHARS) this.flush();
  }

  /** One whole line, rendered earlier (a row whose result has no extra fields). */
  writeLine(line: string): void {
    this.batch += line;
    this.rowIndex++;
    if (this.batch.length >= BATCH_CHARS) this.flush();
  }

  /** A row's input fields as CSV, fitted to the header's width. */
  renderFields(fields: readonly string[]): string {
    const { width } = this;
    if (fields.length === width) return csvFields(fields);
    // Short rows are padded with empty fields; longer ones lose the extra fields (they are invalid).
    let text = '';
    for (let i = 0; i < width; i++) {
      if (i > 0) text += ',';
      text += csvField(fields[i] ?? '');
    }
    return text;
  }

  /** A result's columns and status, from the comma after the input fields to the line's end. */
  renderResult(result: RowResult): string {
    let tail = this.rendered.get(result);
    if (tail === undefined) {
      tail = '';
      for (const cell of result.cells) tail += `,${csvField(cell)}`;
      tail += `,${csvField(result.status)}\n`;
      this.rendered.set(result, tail);
    }
    return tail;
  }

  /** Stops writing: the run stops (the spill's disk is full, say). */
  fail(error: Error): void {
    this.file.destroy(error);
  }

  /** Whether the file's buffer is full: the caller waits for drained() before writing more. */
  get needsDrain(): boolean {
    return this.file.writableNeedDrain;
  }

  drained(): Promise<unknown> {
    return once(this.file, 'drain');
  }

  private flush(): void {
    if (this.batch === '' || this.error) return;
    // Batches end at row boundaries, so a key inside a cell is never split between two of them.
    this.file.write(this.scrub(this.batch));
    this.batch = '';
  }

  /** Closes the file; waits until it is written (or has failed). */
  async close(): Promise<void> {
    this.flush();
    this.file.end();
    await finished(this.file).catch(() => undefined);
    await this.extras?.close();
  }

  /**
   * After close(): a complete run's output replaces <out> (with the extra columns merged in, if
   * any answer had fields the description does not list) and returns their names; an incomplete
   * one is deleted, which also frees its space for the answers the journal may still need to save.
   */
  async finish(completed: boolean, extraName: (name: string) => string): Promise<string[]> {
    try {
      if (!completed) {
        rmSync(this.tempPath, { force: true });
        return [];
      }
      if (this.extras && this.extras.names.size > 0) {
        const merged = `${this.outPath}.merged.partial`;
        await this.extras.merge(this.tempPath, merged, extraName);
        rmSync(this.tempPath, { force: true });
        fsyncFile(merged);
        renameSync(merged, this.outPath);
        return [...this.extras.names];
      }
      fsyncFile(this.tempPath);
      renameSync(this.tempPath, this.outPath);
      return [];
    } finally {
      this.extras?.discard();
    }
  }
}

function fsyncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
