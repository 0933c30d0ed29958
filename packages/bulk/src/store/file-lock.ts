// One writer per file: a bulk run locks its answer cache and its output, because two runs appending
// to one journal would each miss the other's answers and pay twice, and two runs writing one output
// would interleave it.
//
// The lock is a file beside the locked one, `<file>.lock`, holding {"pid":…,"start":…}: the process
// id and its start time (field 22 of /proc/<pid>/stat, in clock ticks since boot). A lock is taken
// over when its holder is gone: no such process, a zombie (dead but not yet reaped by its parent:
// `kill(pid, 0)` still succeeds for it), or another process that got the same pid later (its start
// time differs). Where /proc does not exist, only `kill(pid, 0)` is asked.
import { closeSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { abortableSleep } from '@enrich/core';
import { BulkError } from '../run/bulk-error.js';

export interface LockHolder {
  readonly pid: number;
  /** Start time from /proc, or undefined where there is none. */
  readonly start: string | undefined;
}

/**
 * Locks this process holds now. A lock file naming this process is someone's here (an MCP call
 * while the same server runs a file): busy, not stale. One naming this pid that this process does
 * not hold was left by an earlier process that had the same pid.
 */
const heldHere = new Set<string>();

export interface FileLock {
  readonly path: string;
  release(): void;
}

/**
 * A file a live run holds (this process's, or another's): nothing was done with it. Clients know it
 * by its class, never by its words: waiting a moment may free it (MCP's file tools wait; the CLI
 * says so and exits).
 */
export class FileInUse extends BulkError {
  constructor(
    readonly path: string,
    /** What the file is ("answer cache", "output"), as the message says it. */
    readonly what: string,
    /** The holder's process id. */
    readonly holder: number,
  ) {
    super(
      holder === process.pid
        ? `Another enrich run of this process is using the ${what} ${path}; wait for it to finish, or give this run its own file`
        : `Another enrich run (process ${holder}) is using the ${what} ${path}; wait for it to finish, or give this run its own file`,
    );
    this.name = 'FileInUse';
  }
}

/** The answer cache is busy: another run (or another call of this process) holds its lock. */
export class CacheInUse extends FileInUse {
  constructor(path: string, holder: number) {
    super(path, ANSWER_CACHE, holder);
    this.name = 'CacheInUse';
  }
}

/** What an answer cache's lock is called (answer-store.ts and forget's rewrite lock it by this name). */
export const ANSWER_CACHE = 'answer cache';

/**
 * Locks `path` for this process, or throws FileInUse (CacheInUse for the answer cache) naming the
 * live holder. `what` says what the file is, for the message ("answer cache", "output").
 */
export function acquireLock(path: string, what: string): FileLock {
  const lockPath = `${path}.lock`;
  const mine = JSON.stringify({ pid: process.pid, start: startTimeOf(process.pid) ?? null });
  for (let tries = 0; tries < 3; tries++) {
    // Written whole to a private name, then linked into place: link() fails if the lock exists, and
    // a reader never sees a half-written lock.
    const temp = `${lockPath}.${process.pid}.${Date.now()}.tmp`;
    const fd = openSync(temp, 'wx');
    try {
      writeSync(fd, mine);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temp, lockPath);
      heldHere.add(lockPath);
      return { path: lockPath, release: () => release(lockPath, mine) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(temp);
    }
    const holder = readHolder(lockPath);
    const live =
      holder !== undefined && (holder.pid === process.pid ? heldHere.has(lockPath) : isRunning(holder));
    if (live)
      throw what === ANSWER_CACHE ? new CacheInUse(path, holder.pid) : new FileInUse(path, what, holder.pid);
    // The holder is gone. Move its lock aside under a name of our own before deleting it, so that
    // two runs taking over at once cannot delete each other's fresh lock.
    const stale = `${lockPath}.${process.pid}.stale`;
    try {
      renameSync(lockPath, stale);
      unlinkSync(stale);
    } catch {
      // Another run took it over first; the next try sees its lock.
    }
  }
  throw new BulkError(`Could not lock the ${what} ${path}`);
}

/** How often a file another process holds is tried again, while waiting for it. */
const IN_USE_RETRY_MS = 50;

/**
 * What `attempt` gives, tried again every 50 ms while it throws FileInUse (another run holds the
 * file a moment: the MCP server's file tools and answer cache, VS Code's History), for up to
 * `waitMs`, or until `stop()` says to give up; then the last FileInUse is thrown. Any other error
 * is thrown at once. The one rule for how a client waits on another's lock.
 */
export async function whileInUse<T>(
  attempt: () => T | Promise<T>,
  waitMs: number,
  stop: () => boolean = () => false,
): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof FileInUse) || stop() || Date.now() >= deadline) throw error;
      await abortableSleep(IN_USE_RETRY_MS);
    }
  }
}

function release(lockPath: string, mine: string): void {
  heldHere.delete(lockPath);
  try {
    // Only our own lock: never one another run took over after this one was presumed dead.
    if (readFileSync(lockPath, 'utf8') === mine) unlinkSync(lockPath);
  } catch {
    // Already gone: nothing to release.
  }
}

/** What the lock file says, or undefined when it is unreadable (then nobody holds it). */
export function readHolder(lockPath: string): LockHolder | undefined {
  let text: string;
  try {
    text = readFileSync(lockPath, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as { pid?: unknown; start?: unknown };
    if (!parsed || typeof parsed !== 'object' || !Number.isInteger(parsed.pid)) return undefined;
    return {
      pid: parsed.pid as number,
      start: typeof parsed.start === 'string' ? parsed.start : undefined,
    };
  } catch {
    return undefined;
  }
}

/** Whether the process that wrote the lock still runs (and is not a zombie, nor a namesake). */
export function isRunning(holder: LockHolder): boolean {
  if (holder.pid <= 0) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(holder.pid);
  if (stat === undefined) return true;
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return holder.start === undefined || holder.start === stat.start;
}

export function startTimeOf(pid: number): string | undefined {
  return procStat(pid)?.start;
}

function procStat(pid: number): { state: string; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ")".
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  // Field 22 of the line is starttime; fields here start at field 3 (state).
  const start = fields[19];
  if (state === undefined || start === undefined) return undefined;
  return { state, start };
}
