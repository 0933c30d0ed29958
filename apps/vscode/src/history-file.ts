// The History on disk (issue 38): `history.json` in the extension's global storage folder, a file of
// its own rather than VS Code's globalState. globalState lives in VS Code's state database (in
// code-server, the browser's IndexedDB), whose log files keep a value's old bytes after it is
// updated: a person removed from the History stayed readable there. This file is replaced whole,
// so what a change removes is gone from it.
//
// Crash-safe, by the bulk engine's replaceFile (written aside, synced, renamed over the file, the
// folder synced): a crash leaves the old file or the new one, never a mix; an aside file a crash
// left is deleted by the next change (removeAbandoned). Each change reads the file afresh under its lock
// (`history.json.lock`, the bulk engine's file lock, which the answer caches and the suppression
// list take too), so two windows adding a call at once lose neither; within one extension host,
// changes queue. Reads come from memory, read again when the file changed (another window wrote).
// Node's fs, synchronously, as the spend ledger's file: this module does not import vscode, so a
// test can run it in a process of its own and kill it mid-rewrite.
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, type Stats, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { acquireLock, FileInUse, removeAbandoned, replaceFile, whileInUse } from '@enrich/bulk';

export const HISTORY_FILE = 'history.json';
const LOCK_WAIT_MS = 10_000;

export interface HistoryFileOptions {
  /** How long a change waits for another window's (default 10 s). */
  readonly lockWaitMs?: number;
  /** Called after the new content is synced, before it is renamed into place (the kill test). */
  readonly beforeRename?: () => void;
}

/** Changes in flight per file in this process: each starts when the one before it ends. */
const queues = new Map<string, Promise<unknown>>();

export class HistoryFile {
  readonly path: string;
  private cached: { readonly stamp: string; readonly entries: readonly unknown[] } | undefined;

  constructor(
    folder: string,
    private readonly options: HistoryFileOptions = {},
  ) {
    this.path = join(folder, HISTORY_FILE);
  }

  /** The entries as stored, newest first; none when there is no file. Throws when it cannot be read. */
  read(): readonly unknown[] {
    const stamp = stampOf(this.path);
    if (stamp === undefined) return [];
    if (this.cached?.stamp === stamp) return this.cached.entries;
    const fd = openSync(this.path, 'r');
    try {
      const entries = parse(readFileSync(fd, 'utf8'), this.path);
      this.cached = { stamp: stampFrom(fstatSync(fd)), entries };
      return entries;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Replaces the entries with what `edit` makes of the current ones (read afresh under the lock);
   * `edit` returns undefined when nothing is to change. Resolves once the new file is in place.
   */
  change(edit: (entries: readonly unknown[]) => readonly unknown[] | undefined): Promise<void> {
    const before = queues.get(this.path) ?? Promise.resolve();
    const mine = before.then(() => this.changeNow(edit));
    const tail = mine.catch(() => {});
    queues.set(this.path, tail);
    void tail.then(() => {
      if (queues.get(this.path) === tail) queues.delete(this.path);
    });
    return mine;
  }

  private async changeNow(edit: (entries: readonly unknown[]) => readonly unknown[] | undefined) {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const lock = await lockWithin(this.path, this.options.lockWaitMs ?? LOCK_WAIT_MS);
    try {
      // Under the lock no rewrite is under way: an aside file is one a crash left.
      removeAbandoned(this.path);
      this.cached = undefined;
      const next = edit(this.read());
      if (next === undefined) return;
      const text = `${JSON.stringify({ v: 1, entries: next })}\n`;
      replaceFile(this.path, text, this.options.beforeRename);
      this.cached = { stamp: stampOf(this.path) ?? '', entries: next };
    } finally {
      lock.release();
    }
  }
}

/** The bulk engine's file lock, waited for while another window holds it (bulk's whileInUse). */
async function lockWithin(path: string, waitMs: number) {
  try {
    return await whileInUse(() => acquireLock(path, 'History'), waitMs);
  } catch (error) {
    if (!(error instanceof FileInUse)) throw error;
    throw new Error(`The History file ${path} stayed locked by another window for ${waitMs / 1000} s`);
  }
}

// Never quotes the text in a message: it holds people's data, and messages reach the log.
function parse(text: string, path: string): readonly unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`The History file ${path} is not valid JSON; delete it to start a new History`);
  }
  const entries = (parsed as { v?: unknown; entries?: unknown } | null)?.entries;
  if ((parsed as { v?: unknown } | null)?.v !== 1 || !Array.isArray(entries)) {
    throw new Error(
      `The History file ${path} is not one this extension wrote; delete it to start a new History`,
    );
  }
  return entries;
}

// A rewrite is a new inode (the rename), so the stamp changes even within one mtime tick.
function stampOf(path: string): string | undefined {
  try {
    return stampFrom(statSync(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function stampFrom(stat: Stats): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
}
