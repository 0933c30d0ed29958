// Rewrites an answer journal without some of its lines (issue 38: forget a person, prune old
// answers), under the journal's lock, the one a run takes: no run appends while it is rewritten, and
// no rewrite starts while a run holds it (it waits, then says the journal is busy). The new journal
// is written aside and renamed over the old one (aside-file.ts): a kill at any moment leaves the old
// journal or the new one, each readable whole, with every answer that was not to be removed. Lines
// are copied byte for byte; a journal with nothing to remove is not written at all. The answers a
// run set aside for this journal (its rescue and side files, rescue-files.ts) are rewritten too.
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { abortableSleep } from '@enrich/core';
import { BulkError } from '../run/bulk-error.js';
import { acquireLock, type FileLock } from '../store/file-lock.js';
import { rescuePathFor } from '../store/journal-file.js';
import { rescueFiles } from '../store/rescue-files.js';
import { AsideFile, removeAbandoned, replaceFile } from './aside-file.js';

/** Whether a line (as text, without its line break) is to be removed. */
export type Drop = (line: string) => boolean;

export interface RewriteResult {
  /** Lines removed from the journal and from the answers set aside for it. */
  readonly removed: number;
  /** Lines kept (answers, and lines that are not answers of ours but hold nothing to remove). */
  readonly kept: number;
  /** The journal does not exist (any more). */
  readonly missing: boolean;
}

export interface RewriteOptions {
  /** How long to wait for a run that holds the journal's lock; 10 s by default. */
  readonly lockWaitMs?: number;
  /** Where the journal's rescue and side files are (the temp directory by default). */
  readonly rescueDir?: string;
  /** Called between reading and renaming, for tests that kill the rewrite there. */
  readonly beforeRename?: () => void;
}

const CHUNK = 4 << 20;

/** Rewrites `path` without the lines `drop` picks; throws a BulkError when a run holds it past the wait. */
export async function rewriteJournal(
  path: string,
  drop: Drop,
  options: RewriteOptions = {},
): Promise<RewriteResult> {
  const lock = await lockFile(path, 'answer cache', options.lockWaitMs ?? 10_000);
  try {
    removeAbandoned(path);
    if (existsSync(path) && !statSync(path).isFile()) throw new BulkError(`${path} is not a file`);
    const journal = existsSync(path)
      ? rewriteLines(path, drop, options.beforeRename)
      : { removed: 0, kept: 0 };
    let { removed, kept } = journal;
    for (const side of rescueFiles(rescuePathFor(path, options.rescueDir ?? tmpdir()))) {
      const result = rewriteSmall(side, drop);
      removed += result.removed;
      kept += result.kept;
    }
    return { removed, kept, missing: !existsSync(path) };
  } finally {
    lock.release();
  }
}

/** Takes a file's lock (file-lock.ts), waiting for the run that holds it; throws a BulkError past the wait. */
export async function lockFile(path: string, what: string, waitMs: number): Promise<FileLock> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return acquireLock(path, what);
    } catch (error) {
      if (!(error instanceof BulkError) || Date.now() >= deadline) throw error;
      await abortableSleep(100);
    }
  }
}

// Streams the journal through the predicate, 4 MB at a time; writes aside only once a line is dropped.
function rewriteLines(
  path: string,
  drop: Drop,
  beforeRename?: () => void,
): { removed: number; kept: number } {
  const fd = openSync(path, 'r');
  let aside: AsideFile | undefined;
  let removed = 0;
  let kept = 0;
  // Bytes before the first dropped line are copied in one piece when the first is found.
  let cleanPrefix = 0;
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    let carry = Buffer.alloc(0);
    let position = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK, position);
      const chunk =
        carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, read)]) : buffer.subarray(0, read);
      position += read;
      const last = read === 0;
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(10, start);
        if (nl < 0 && !last) break;
        const end = nl < 0 ? chunk.length : nl + 1;
        if (end === start) break;
        const line = chunk.subarray(start, end);
        if (drop(line.toString('utf8', 0, nl < 0 ? line.length : line.length - 1))) {
          if (aside === undefined) {
            aside = new AsideFile(path);
            copyPrefix(fd, aside, cleanPrefix);
          }
          removed++;
        } else {
          kept++;
          if (aside) aside.writeBytes(line);
          else cleanPrefix += line.length;
        }
        start = end;
      }
      if (last) break;
      carry = Buffer.from(chunk.subarray(start));
    }
    if (aside) {
      beforeRename?.();
      aside.commit();
    }
    return { removed, kept };
  } catch (error) {
    aside?.abandon();
    throw error;
  } finally {
    closeSync(fd);
  }
}

function copyPrefix(fd: number, aside: AsideFile, length: number): void {
  const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(length, 1)));
  for (let done = 0; done < length; ) {
    const read = readSync(fd, buffer, 0, Math.min(buffer.length, length - done), done);
    aside.writeBytes(Buffer.from(buffer.subarray(0, read)));
    done += read;
  }
}

/** A rescue or side file: small, read whole, replaced whole (crash-safe); deleted when nothing is left. */
export function rewriteSmall(path: string, drop: Drop): { removed: number; kept: number } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { removed: 0, kept: 0 }; // taken in by a writer meanwhile
  }
  const lines = text.split('\n').filter((line) => line !== '');
  const keep = lines.filter((line) => !drop(line));
  const removed = lines.length - keep.length;
  if (removed === 0) return { removed: 0, kept: keep.length };
  if (keep.length === 0) unlinkSync(path);
  else replaceFile(path, keep.map((line) => `${line}\n`).join(''));
  return { removed, kept: keep.length };
}
