// A file replaced whole and crash-safe (issue 38): the new content is written aside, beside the
// file, under a private name; synced; renamed over the file (atomic on one file system); and the
// folder synced, so that the rename itself survives a power cut. A crash at any moment leaves the
// old file or the new one, never a mix; what it may leave is the aside file, which the next rewrite
// of the same file deletes (removeAbandoned) once its writer is gone. An aside file only ever holds
// what is kept, never what was removed.
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  fdatasyncSync,
  fsyncSync,
  openSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ByteBatch } from '../run/byte-batch.js';
import { isRunning } from '../store/file-lock.js';

const CHUNK = 1 << 20;
const ASIDE = /\.aside-(\d+)-[0-9a-f]{8}\.tmp$/;

export class AsideFile {
  readonly temp: string;
  private readonly fd: number;
  private readonly batch: ByteBatch;
  private done = false;
  private closed = false;

  /** Starts the new content of `path` (which need not exist yet). */
  constructor(readonly path: string) {
    this.temp = `${path}.aside-${process.pid}-${randomUUID().slice(0, 8)}.tmp`;
    this.fd = openSync(this.temp, 'wx', 0o600);
    this.batch = new ByteBatch(CHUNK, (bytes) => writeAllSync(this.fd, bytes));
  }

  /** Appends bytes as they are (a line copied from the old file). */
  writeBytes(bytes: Buffer): void {
    this.batch.bytes(bytes);
  }

  write(text: string): void {
    this.batch.text(text);
  }

  /**
   * Syncs the new content and renames it over the file, then syncs the folder. `beforeRename` runs
   * between the two (a kill test stops a writer there).
   */
  commit(beforeRename?: () => void): void {
    this.batch.flush();
    fdatasyncSync(this.fd);
    closeSync(this.fd);
    this.closed = true;
    beforeRename?.();
    renameSync(this.temp, this.path);
    this.done = true;
    syncFolder(dirname(this.path));
  }

  /** Leaves the file as it was (the new content is deleted). */
  abandon(): void {
    if (this.done) return;
    this.done = true;
    if (!this.closed) closeSync(this.fd);
    try {
      unlinkSync(this.temp);
    } catch {
      // Already gone.
    }
  }
}

/** Writes `text` as the whole new content of `path`, crash-safe. */
export function replaceFile(path: string, text: string, beforeRename?: () => void): void {
  const aside = new AsideFile(path);
  try {
    aside.write(text);
    aside.commit(beforeRename);
  } catch (error) {
    aside.abandon();
    throw error;
  }
}

/** Deletes aside files of `path` whose writer is gone (killed mid-rewrite); returns how many. */
export function removeAbandoned(path: string): number {
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return 0;
  }
  let removed = 0;
  const stem = basename(path);
  for (const name of names) {
    const pid = name.startsWith(`${stem}.`) ? ASIDE.exec(name.slice(stem.length))?.[1] : undefined;
    if (pid === undefined || isRunning({ pid: Number(pid), start: undefined })) continue;
    try {
      unlinkSync(join(dirname(path), name));
      removed++;
    } catch {
      // Removed by another rewrite meanwhile.
    }
  }
  return removed;
}

function writeAllSync(fd: number, buffer: Buffer): void {
  let done = 0;
  while (done < buffer.length) done += writeSync(fd, buffer, done, buffer.length - done);
}

/** fsync of a folder: makes a rename in it durable (a no-op where folders cannot be opened). */
function syncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Windows cannot open a folder; its renames are durable on their own terms.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
