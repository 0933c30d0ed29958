// The rows between reading and writing, in file order: first the window in memory (rows as read),
// then, once the window is full, the spill on disk (rows rendered as the output's text; see spill.ts). A row
// is written as soon as every row before it is; one whose answer is still coming waits, and the
// rows after it wait behind it, on disk past the window's capacity. Reading therefore never waits
// for a slow answer, and memory holds at most the window's rows whatever the file's size.
import type { OutputFile } from './output-file.js';
import type { RowResult } from './row-result.js';
import { COMPLETE, SpillFile } from './spill.js';
import { OrderedWindow, type Pending } from './window.js';

type Waiting = RowResult | Pending<RowResult>;

export function isPending(value: Waiting): value is Pending<RowResult> {
  return !('status' in value);
}

export class RowQueue {
  private readonly window: OrderedWindow<readonly string[] | string, RowResult>;
  private readonly spill: SpillFile;
  // What spilled rows wait for, by id: pending requests, and results with extra fields (whose
  // extras are recorded when the row is written). Emptied whenever the spill is.
  private refs: Waiting[] = [];
  private refIds = new Map<Waiting, number>();

  constructor(
    capacity: number,
    spillPath: string,
    private readonly output: OutputFile,
    private readonly counted: {
      row(result: RowResult): void;
      code(result: RowResult): number;
      line(code: number): void;
    },
  ) {
    this.window = new OrderedWindow(capacity);
    this.spill = new SpillFile(spillPath);
  }

  /** Rows held in memory (the spilled ones are on disk). */
  get inMemory(): number {
    return this.window.size;
  }

  get isEmpty(): boolean {
    return this.window.size === 0 && this.spill.isEmpty;
  }

  /**
   * Adds the next row of the file: its fields, or its own part already rendered (renderFields).
   * Throws if the spill's disk is full (the run stops).
   */
  add(fields: readonly string[] | string, value: Waiting): void {
    if (this.spill.isEmpty) {
      if (this.window.size === 0 && !isPending(value)) {
        this.write(fields, value);
        return;
      }
      if (!this.window.isFull) {
        this.window.push(fields, value);
        return;
      }
    }
    const text = typeof fields === 'string' ? fields : this.output.renderFields(fields);
    if (!isPending(value) && !value.extra) {
      // Known and simple: the whole line goes to disk, ready to be copied out.
      this.spill.append(COMPLETE | this.counted.code(value), text + this.output.renderResult(value));
      return;
    }
    let id = this.refIds.get(value);
    if (id === undefined) {
      id = this.refs.length;
      this.refs.push(value);
      this.refIds.set(value, id);
    }
    this.spill.append(id, text);
  }

  /**
   * Writes every row whose turn has come: from the window, then from the spill, in order. Stops
   * taking rows off the disk while the output's buffer is full (they would pile up in memory
   * there instead); the caller flushes again once it has drained.
   */
  flush(): void {
    // The output cannot be written (its disk is full): the run is stopping and writes nothing more.
    if (this.output.error) return;
    this.window.drain(this.write, isPending);
    while (this.window.size === 0 && !this.spill.isEmpty && !this.output.needsDrain) {
      const record = this.spill.take();
      if (record === undefined) break;
      if (record.tag & COMPLETE) {
        // Copied out as bytes: never decoded and encoded again.
        this.output.writeBytes(record.bytes);
        this.counted.line(record.tag & ~COMPLETE);
        continue;
      }
      const value = this.refs[record.tag] as Waiting;
      const result = isPending(value) ? value.result : value;
      if (result !== undefined) {
        this.output.writeSpilled(record.bytes, result);
        this.counted.row(result);
        continue;
      }
      // Waits in the window (one row) for its answer; the rest stay on disk behind it.
      this.window.push(record.bytes.toString('utf8'), value);
    }
    if (this.spill.isEmpty && this.refs.length > 0) {
      this.refs = [];
      this.refIds = new Map();
    }
  }

  /** Deletes the spill file. */
  close(): void {
    this.spill.close();
  }

  private readonly write = (fields: readonly string[] | string, result: RowResult) => {
    this.output.writeRow(fields, result);
    this.counted.row(result);
  };
}
