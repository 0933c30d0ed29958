// Rows read while earlier rows still wait for their answers wait on disk instead of in memory, in
// file order, already rendered as CSV text: a file with more rows than the window holds keeps
// being read, planned and rendered while the network works (its local work overlaps its waiting),
// and memory stays bounded whatever the file's size. When the rows before them are written, they
// are read back in order and written after them; rendering them then costs almost nothing.
//
// A record is [tag: u32][length: u32][UTF-8 text]. The tag says what the text is: a whole output
// line whose result was known when it was read (COMPLETE | the result's kind code), or the row's
// own fields with the id of the result it waits for (a pending request, or a result that has extra
// fields to record when it is written).
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';

const CHUNK = 1 << 20;
const HEADER = 8;
// A flag bit below the sign bit, so that tags stay positive for bitwise operations.
export const COMPLETE = 0x40000000;

export interface SpillRecord {
  readonly tag: number;
  /** The record's UTF-8 text (a view of the read buffer, valid after later takes). */
  readonly bytes: Buffer;
}

export class SpillFile {
  private fd: number | undefined;
  private out = Buffer.allocUnsafe(CHUNK);
  private outLength = 0;
  /** Bytes in the file, and where the next record to take starts in it. */
  private fileSize = 0;
  private readAt = 0;
  private input = Buffer.alloc(0);
  private inputAt = 0;
  private count = 0;

  constructor(readonly path: string) {
    // A run killed while spilling left its spill behind; the output's lock is ours, so is this file.
    rmSync(path, { force: true });
  }

  get isEmpty(): boolean {
    return this.count === 0;
  }

  /** Adds a record at the end. Throws if the disk cannot take it (the caller stops the run). */
  append(tag: number, text: string): void {
    const most = HEADER + text.length * 3;
    if (this.outLength + most > this.out.length) {
      this.writeOut();
      if (most > this.out.length) this.out = Buffer.allocUnsafe(most);
    }
    const length = this.out.write(text, this.outLength + HEADER, 'utf8');
    this.out.writeUInt32LE(tag, this.outLength);
    this.out.writeUInt32LE(length, this.outLength + 4);
    this.outLength += HEADER + length;
    this.count++;
  }

  /** The first record, removed; undefined when there is none. */
  take(): SpillRecord | undefined {
    if (this.count === 0) return undefined;
    this.need(HEADER);
    const tag = this.input.readUInt32LE(this.inputAt);
    const length = this.input.readUInt32LE(this.inputAt + 4);
    this.need(HEADER + length);
    const start = this.inputAt + HEADER;
    const bytes = this.input.subarray(start, start + length);
    this.inputAt = start + length;
    this.count--;
    if (this.count === 0) this.reset();
    return { tag, bytes };
  }

  /** Deletes the file. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.path, { force: true });
  }

  // Makes sure `bytes` bytes of the current record are in memory from inputAt.
  private need(bytes: number): void {
    if (this.input.length - this.inputAt >= bytes) return;
    const kept = this.input.subarray(this.inputAt);
    // The record may still be in the write buffer: put it in the file first.
    if (this.fileSize - this.readAt < bytes - kept.length) this.writeOut();
    const size = Math.min(Math.max(CHUNK, bytes), this.fileSize - this.readAt + kept.length);
    const next = Buffer.allocUnsafe(size);
    kept.copy(next, 0);
    let filled = kept.length;
    while (filled < size) {
      const read = readSync(this.fd as number, next, filled, size - filled, this.readAt);
      if (read === 0) throw new Error(`the spill file ${this.path} ended early`);
      filled += read;
      this.readAt += read;
    }
    this.input = next;
    this.inputAt = 0;
  }

  private writeOut(): void {
    if (this.outLength === 0) return;
    this.fd ??= openSync(this.path, 'w+', 0o600);
    let done = 0;
    while (done < this.outLength) {
      done += writeSync(this.fd, this.out, done, this.outLength - done, this.fileSize + done);
    }
    this.fileSize += this.outLength;
    this.outLength = 0;
  }

  // Every record taken: start the file again from the top (it does not grow with the run).
  private reset(): void {
    this.fileSize = 0;
    this.readAt = 0;
    this.input = Buffer.alloc(0);
    this.inputAt = 0;
    this.outLength = 0;
  }
}
