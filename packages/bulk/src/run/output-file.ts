// The output of a run, written to <out>.partial row by row in file order and renamed over <out>
// only when every row is in it. The output's format (csv-format.ts, jsonl-format.ts,
// xlsx-format.ts) renders the rows as text; here they are encoded into batches of 64 KB for the
// file (byte-batch.ts; one write call per row would cost more CPU than the rest of the row's work).
// A result's part is encoded once too, and its bytes copied into each row that shares it. The key
// scrubber runs over each piece as it is rendered: a row's input fields, and a result's part, which
// is rendered (and scrubbed) once and reused by every row that shares the result (a file repeats
// its requests: that is what dedup is for). Scrubbing whole batches instead scanned every byte of
// the answers again on every row: a quarter of a cached run's CPU.
import { once } from 'node:events';
import {
  closeSync,
  createWriteStream,
  fdatasync,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  type WriteStream,
} from 'node:fs';
import { finished } from 'node:stream/promises';
import type { RowFormat } from '../formats/row-format.js';
import { ByteBatch } from './byte-batch.js';
import { ExtraColumns } from './extra-columns.js';
import type { RowResult } from './row-result.js';

const BATCH_BYTES = 64 * 1024;
const SYNC_EVERY_BYTES = 16 * 1024 * 1024;

export class OutputFile {
  readonly tempPath: string;
  /** The first error writing the file (disk full, say); nothing more is written after it. */
  error: Error | undefined;
  private readonly file: WriteStream;
  private readonly extras: ExtraColumns | undefined;
  private readonly batch = new ByteBatch(BATCH_BYTES, (bytes) => this.put(bytes));
  private rowIndex = 0;
  private readonly rendered = new WeakMap<RowResult, string>();
  private readonly renderedBytes = new WeakMap<RowResult, Buffer>();
  private unsynced = 0;
  private syncing: Promise<void> | undefined;

  constructor(
    private readonly outPath: string,
    private readonly format: RowFormat,
    private readonly scrub: (text: string) => string,
    options: { allExtras: boolean; onError: (error: Error) => void },
  ) {
    this.tempPath = `${outPath}.partial`;
    // A buffer of 256 KB, not Node's 16 KB: a run writes its output in 64 KB batches, and waiting
    // for the disk after each one (thousands of round trips through the thread pool at the end of a
    // big run, when the rows on disk come out) cost seconds. Not 1 MB either: that much queued raised
    // a cached run's peak memory by a third, at the same wall time (the CLI's bench/README.md).
    this.file = createWriteStream(this.tempPath, { highWaterMark: 256 * 1024 });
    this.file.on('error', (error) => {
      this.error ??= error;
      options.onError(error);
    });
    this.extras = options.allExtras
      ? new ExtraColumns(this.tempPath, (error) => this.file.destroy(error))
      : undefined;
  }

  writeHeader(): void {
    this.batch.text(this.scrub(this.format.header()));
  }

  /** One whole line as UTF-8 bytes, rendered (and scrubbed) earlier: a row from the spill. */
  writeBytes(line: Buffer): void {
    this.batch.bytes(line);
    this.rowIndex++;
  }

  /**
   * A row from the spill that waited there for its answer: its input fields as UTF-8 bytes,
   * rendered (and scrubbed) earlier, then its result. Bytes throughout: at the end of a big run,
   * when most of the file comes out of the spill at once, decoding each row and encoding it again
   * was most of the time left after the last answer.
   */
  writeSpilled(fields: Buffer, result: RowResult): void {
    this.batch.bytes(fields);
    this.writeResult(result);
  }

  /**
   * One row: its input fields (fitted to the header's width; or already rendered by renderFields)
   * and its result's columns.
   */
  writeRow(fields: readonly string[] | string, result: RowResult): void {
    this.batch.text(typeof fields === 'string' ? fields : this.renderFields(fields));
    this.writeResult(result);
  }

  private writeResult(result: RowResult): void {
    let tail = this.renderedBytes.get(result);
    if (tail === undefined) {
      tail = Buffer.from(this.renderResult(result));
      this.renderedBytes.set(result, tail);
    }
    this.batch.bytes(tail);
    if (result.extra) this.extras?.add(this.rowIndex, result.extra, this.scrub);
    this.rowIndex++;
  }

  /** A row's own part (its fields fitted to the header, or its original), scrubbed. */
  renderFields(fields: readonly string[], original?: string): string {
    return this.scrub(this.format.fields(fields, original));
  }

  /** A result's part, from the end of the row's own part to the line's end, scrubbed. */
  renderResult(result: RowResult): string {
    let tail = this.rendered.get(result);
    if (tail === undefined) {
      tail = this.scrub(this.format.result(result));
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

  private put(chunk: Buffer): void {
    // After an error nothing more is written; every piece was scrubbed as it was rendered.
    if (this.error) return;
    this.file.write(chunk);
    this.unsynced += chunk.length;
    // The output is synced before it is renamed into place; syncing as it grows spreads that wait
    // over the run, where it overlaps the reading, instead of adding it at the end.
    // (A WriteStream has its descriptor once open; Node's types do not say so.)
    const fd = (this.file as unknown as { fd: number | null }).fd;
    if (this.unsynced >= SYNC_EVERY_BYTES && this.syncing === undefined && typeof fd === 'number') {
      this.unsynced = 0;
      this.syncing = new Promise<void>((resolve) => fdatasync(fd, () => resolve())).then(() => {
        this.syncing = undefined;
      });
    }
  }

  /** Closes the file; waits until it is written (or has failed). */
  async close(): Promise<void> {
    this.batch.flush();
    // Not while a sync of its descriptor runs: the descriptor would be closed under it.
    await this.syncing;
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
      const extras = this.extras && this.extras.names.size > 0 ? this.extras.rows(extraName) : undefined;
      if (extras || !this.format.linesAreTheFile) {
        const written = `${this.outPath}.merged.partial`;
        try {
          await this.format.finish(this.tempPath, written, extras);
        } finally {
          extras?.close();
        }
        rmSync(this.tempPath, { force: true });
        fsyncFile(written);
        renameSync(written, this.outPath);
        return extras ? [...extras.names] : [];
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
