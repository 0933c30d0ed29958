// The local answer cache, which is also the journal that makes bulk runs resumable.
//
// One JSON object per line, appended as each paid answer arrives and before the row that needed it
// is counted as done: {"v":1,"ns":"...","key":"...","at":<ms>,"outcome":{...}}.
// - `key` is core's requestKey (operation + normalised input); `ns` names the service that answered
//   (the v2/v3 operation URL, or "sandbox"), so sandbox answers never stand in for real ones. Neither
//   holds the API key, and nothing else in the line does.
// - Append-only: a kill can at worst leave a torn last line, which the next open skips (and ends with
//   a newline so the next answer starts clean). A later line for the same key wins.
// - Only an index (key -> byte offset) is kept in memory; answers are read back from the file when a
//   row needs one, so memory grows with the number of distinct requests, by a few dozen bytes each,
//   and not at all with the number of rows.
// - Answers older than maxAgeMs are not used (they are asked again, and the new answer appended).
import {
  closeSync,
  constants,
  existsSync,
  fdatasyncSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { Outcome } from '@enrich/core';
import { CommandError, EXIT } from './exit-codes.js';

const FORMAT_VERSION = 1;
const READ_CHUNK = 1 << 20;
const SYNC_EVERY_MS = 1000;

interface Line {
  readonly v: number;
  readonly ns: string;
  readonly key: string;
  readonly at: number;
  readonly outcome: Outcome;
}

export interface AnswerStoreOptions {
  readonly path: string;
  readonly namespace: string;
  /** Answers older than this are ignored; Infinity keeps them forever. */
  readonly maxAgeMs: number;
  /** Dry runs only read: no lock, no file created. */
  readonly readOnly?: boolean;
  readonly now?: () => number;
}

export class AnswerStore {
  readonly path: string;
  private readonly namespace: string;
  private readonly now: () => number;
  private readonly index = new Map<string, number>();
  private fd: number | undefined;
  private size = 0;
  private lastSync = 0;
  private lockPath: string | undefined;
  /** Lines written by this process since it opened the store. */
  appended = 0;

  private constructor(options: AnswerStoreOptions) {
    this.path = options.path;
    this.namespace = options.namespace;
    this.now = options.now ?? Date.now;
  }

  static open(options: AnswerStoreOptions): AnswerStore {
    const store = new AnswerStore(options);
    if (!options.readOnly) {
      mkdirSync(dirname(options.path), { recursive: true });
      store.lock();
    }
    if (options.readOnly && !existsSync(options.path)) return store;
    try {
      store.fd = openSync(options.path, options.readOnly ? 'r' : 'a+');
      store.load(options.maxAgeMs);
    } catch (error) {
      store.close();
      throw error;
    }
    return store;
  }

  /** Distinct requests with a fresh answer. */
  get count(): number {
    return this.index.size;
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  get(key: string): Outcome | undefined {
    const offset = this.index.get(key);
    if (offset === undefined || this.fd === undefined) return undefined;
    return (JSON.parse(this.readLine(offset)) as Line).outcome;
  }

  /** Appends an answer; it is on disk (in the OS's cache, safe from a kill) when this returns. */
  put(key: string, outcome: Outcome): void {
    if (this.fd === undefined) throw new Error('The answer cache is open read-only');
    const line: Line = { v: FORMAT_VERSION, ns: this.namespace, key, at: this.now(), outcome };
    const text = `${JSON.stringify(line)}\n`;
    writeSync(this.fd, text);
    this.index.set(key, this.size);
    this.size += Buffer.byteLength(text);
    this.appended++;
    // Survives a kill at once; a power cut can cost at most the last second of answers.
    if (this.now() - this.lastSync >= SYNC_EVERY_MS) this.sync();
  }

  sync(): void {
    if (this.fd === undefined) return;
    fdatasyncSync(this.fd);
    this.lastSync = this.now();
  }

  close(): void {
    if (this.fd !== undefined) {
      if (this.lockPath) this.sync();
      closeSync(this.fd);
      this.fd = undefined;
    }
    if (this.lockPath) {
      try {
        unlinkSync(this.lockPath);
      } catch {
        // Already gone: nothing to release.
      }
      this.lockPath = undefined;
    }
  }

  private load(maxAgeMs: number): void {
    const fd = this.fd as number;
    const { size } = fstatSync(fd);
    const oldest = maxAgeMs === Number.POSITIVE_INFINITY ? -Infinity : this.now() - maxAgeMs;
    const buffer = Buffer.alloc(READ_CHUNK);
    let carry = Buffer.alloc(0);
    let carryStart = 0;
    let position = 0;
    while (position < size) {
      const read = readSync(fd, buffer, 0, Math.min(READ_CHUNK, size - position), position);
      if (read === 0) break;
      const chunk =
        carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, read)]) : buffer.subarray(0, read);
      const chunkStart = carry.length > 0 ? carryStart : position;
      position += read;
      let lineStart = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, lineStart)) {
        this.indexLine(chunk.toString('utf8', lineStart, nl), chunkStart + lineStart, oldest);
        lineStart = nl + 1;
      }
      carry = Buffer.from(chunk.subarray(lineStart));
      carryStart = chunkStart + lineStart;
    }
    this.size = size;
    // A torn last line (the process died mid-write) is skipped; end it so the next line is whole.
    if (carry.length > 0 && !this.isReadOnly()) {
      writeSync(fd, '\n');
      this.size += 1;
    }
  }

  private indexLine(text: string, offset: number, oldest: number): void {
    let line: Partial<Line>;
    try {
      line = JSON.parse(text) as Partial<Line>;
    } catch {
      return;
    }
    if (line.v !== FORMAT_VERSION || line.ns !== this.namespace || typeof line.key !== 'string') return;
    if (typeof line.at !== 'number' || line.at < oldest) return;
    this.index.set(line.key, offset);
  }

  private readLine(offset: number): string {
    const fd = this.fd as number;
    const parts: Buffer[] = [];
    let position = offset;
    for (;;) {
      const buffer = Buffer.alloc(4096);
      const read = readSync(fd, buffer, 0, buffer.length, position);
      const nl = buffer.subarray(0, read).indexOf(10);
      if (nl >= 0 || read === 0) {
        parts.push(buffer.subarray(0, nl >= 0 ? nl : read));
        return Buffer.concat(parts).toString('utf8');
      }
      parts.push(buffer.subarray(0, read));
      position += read;
    }
  }

  private isReadOnly(): boolean {
    return this.lockPath === undefined;
  }

  // One writer per cache: two runs appending to one journal would each miss the other's answers
  // and pay twice. A lock left by a killed run is taken over when its process is gone.
  private lock(): void {
    const lockPath = `${this.path}.lock`;
    for (let tries = 0; tries < 2; tries++) {
      try {
        const fd = openSync(lockPath, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY);
        writeSync(fd, String(process.pid));
        closeSync(fd);
        this.lockPath = lockPath;
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
        if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
          throw new CommandError(
            `Another enrich run (process ${holder}) is using the answer cache ${this.path}; wait for it, or give this run its own --cache`,
            EXIT.usage,
          );
        }
        writeFileSync(lockPath, '');
        unlinkSync(lockPath);
      }
    }
    throw new CommandError(`Could not lock the answer cache ${this.path}`, EXIT.usage);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
