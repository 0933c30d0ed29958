// The spend ledger on disk (core's ledger.ts says what a line holds): one file per user, in the
// platform's folder for an application's data, written by every client and process at once.
//
// Why concurrent appenders never lose or glue a line: each line is written by ONE write call on a
// descriptor opened with O_APPEND, so the kernel puts it whole at the end of the file, after every
// other writer's (a local file system serialises appends; lines are far under 4 KB). A line left
// torn by a crash (a power cut, a full disk) would glue the next one to it, so an append first looks
// at the file's last byte, and starts with "\n" when it is not one: the torn line stays alone and is
// skipped by the reader, and the new one is read. (Two appenders may both add that "\n", or one may
// look while another's line is half-way into the file and add one: a blank line, which readers
// ignore; the line itself still lands whole, after the other.)
//
// Why the ledger never fails a run: it is a record of what was spent, not the spending; the answer
// journal already keeps every paid answer. A ledger that cannot be written (a read-only disk, a
// full one) is reported once and the run carries on.
import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname, join, win32 } from 'node:path';
import {
  type LedgerClient,
  type LedgerEntry,
  type LedgerRead,
  ledgerLine,
  type Operation,
  type OperationId,
  operationOrigin,
} from '@enrich/core';
import { type Bases, SANDBOX_NAMESPACE } from './files.js';
import { readLedgerFile } from './ledger-read.js';

/** The environment variable that names the ledger's file instead of the platform's default. */
export const LEDGER_ENV = 'ENRICH_LEDGER';

/** The embedded sandbox's origin in the ledger: its port changes every run, its spend is one service's. */
export const SANDBOX_ORIGIN = 'http://127.0.0.1';

/**
 * Where the ledger is: `ENRICH_LEDGER` if set; else `ledger.jsonl` in the user's data folder:
 * `$XDG_DATA_HOME/enrich` (else `~/.local/share/enrich`) on Linux and other systems,
 * `~/Library/Application Support/enrich` on macOS, `%LOCALAPPDATA%\enrich` (else
 * `<home>\AppData\Local\enrich`) on Windows.
 */
export function ledgerPath(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
  home: string,
): string {
  const given = env[LEDGER_ENV];
  if (given !== undefined && given.trim() !== '') return given;
  if (platform === 'win32')
    return win32.join(env.LOCALAPPDATA || win32.join(home, 'AppData', 'Local'), 'enrich', 'ledger.jsonl');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'enrich', 'ledger.jsonl');
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'enrich', 'ledger.jsonl');
}

/**
 * The service of an answer-store namespace (files.ts's cacheNamespace) as the ledger names it: the
 * embedded sandbox's namespace is SANDBOX_ORIGIN, so that core's rule (isLocalOrigin, grandTotals)
 * tells a sandbox from a real service in the store's spend as in the ledger; any other namespace is
 * its service's base already.
 */
export function namespaceOrigin(namespace: string): string {
  return namespace === SANDBOX_NAMESPACE ? SANDBOX_ORIGIN : namespace;
}

/** The origin an operation's requests go to, as the ledger records it (the sandbox's without its port). */
export function spendOrigin(op: Operation, bases: Bases): string {
  if (bases.sandbox) return SANDBOX_ORIGIN;
  // Bases are checked before anything is sent, so this fallback is never written in practice.
  return operationOrigin(op, bases) ?? 'unknown://unknown';
}

export class LedgerFile {
  constructor(readonly path: string) {}

  /** Appends one line (see the top of this file); throws what the file system throws. */
  append(entry: LedgerEntry): void {
    const line = Buffer.from(ledgerLine(entry));
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    // a+: O_APPEND for the write, and readable for the last byte.
    const fd = openSync(this.path, 'a+', 0o600);
    try {
      const size = fstatSync(fd).size;
      let text = line;
      if (size > 0) {
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, size - 1);
        if (last[0] !== 0x0a) text = Buffer.concat([Buffer.from('\n'), line]);
      }
      // One call, never a loop: a second write could land after another process's line.
      const written = writeSync(fd, text);
      if (written !== text.length) throw new Error(`only ${written} of ${text.length} bytes were written`);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The ledger's entries, and how many lines were skipped; a missing file is an empty ledger. Throws
   * LedgerNotAFile for a path that names no regular file (ledger-read.ts: reading one never ended).
   */
  read(): LedgerRead {
    try {
      return readLedgerFile(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], skipped: 0 };
      throw error;
    }
  }
}

export interface SpendRecorderOptions {
  readonly ledger: LedgerFile;
  readonly operation: OperationId;
  readonly origin: string;
  readonly client: LedgerClient;
  /** The run's id; a random one by default. */
  readonly run?: string;
  /** The input file (bulk runs): only its base name is recorded, `-` for standard input. */
  readonly file?: string;
  /** How long paid transactions may wait before they are written (2 s by default). */
  readonly intervalMs?: number;
  /** Told once, of the first failure to write the ledger; the run goes on. */
  readonly onError?: (error: Error) => void;
  /** Told when it is closed (its ClientLedger stops tracking it). */
  readonly onClose?: () => void;
  readonly now?: () => Date;
}

/**
 * Records a run's paid transactions: `add` counts, and the count is appended at most every
 * intervalMs and on close, so a run of 100,000 rows writes a few lines, not 100,000, and a kill
 * loses at most intervalMs of record (the answer journal still has every answer). A batch never
 * spans two UTC days: the day's change writes what was counted before it.
 */
export class SpendRecorder {
  /** Transactions added so far (written or not). */
  total = 0;
  private pending = 0;
  /** When the last pending transaction was added: the batch's time, so its UTC day is its own. */
  private pendingAt = '';
  private timer: NodeJS.Timeout | undefined;
  private failed = false;
  private closed = false;
  private readonly run: string;
  private readonly file: string | undefined;
  private readonly now: () => Date;

  constructor(private readonly options: SpendRecorderOptions) {
    this.run = options.run ?? randomUUID();
    this.file = options.file === undefined ? undefined : baseName(options.file);
    this.now = options.now ?? (() => new Date());
  }

  add(count = 1): void {
    if (count <= 0) return;
    const at = this.now().toISOString();
    if (this.pending > 0 && at.slice(0, 10) !== this.pendingAt.slice(0, 10)) this.flush();
    this.pending += count;
    this.pendingAt = at;
    this.total += count;
    if (this.closed) this.flush();
    else if (!this.timer) {
      // unref: a pending record never keeps the process alive; close() writes it.
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.options.intervalMs ?? 2000).unref();
    }
  }

  /** Writes what is pending; later adds are written at once. Never throws. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flush();
    this.options.onClose?.();
  }

  /** Writes what is pending now; later adds are batched as before. Never throws. */
  flush(): void {
    if (this.pending === 0) return;
    const { ledger, operation, origin, client } = this.options;
    try {
      ledger.append({
        v: 1,
        at: this.pendingAt,
        operation,
        origin,
        client,
        run: this.run,
        ...(this.file === undefined ? {} : { file: this.file }),
        count: this.pending,
      });
      this.pending = 0;
    } catch (error) {
      // Kept pending: the next flush tries again (a disk that had filled may have room by then).
      if (!this.failed) {
        this.failed = true;
        this.options.onError?.(error as Error);
      }
    }
  }
}

/**
 * One client's side of a ledger (the CLI, the MCP server, VS Code): its recorders carry its name
 * and the service's origin, and a failure to write goes to `failed` (each recorder tells its first
 * one), for the client to say as it says things; the ledger is a record of spending, not the
 * spending, so the call or run goes on.
 */
export class ClientLedger {
  /** Its recorders not yet closed: flush() writes what they counted. */
  private readonly open = new Set<SpendRecorder>();

  constructor(
    readonly file: LedgerFile,
    private readonly client: LedgerClient,
    private readonly failed: (error: Error) => void,
  ) {}

  /** A recorder of one run (or call); close() it when it ends. */
  recorder(
    op: Operation,
    bases: Bases,
    which: { readonly file?: string; readonly run?: string } = {},
  ): SpendRecorder {
    const recorder: SpendRecorder = new SpendRecorder({
      ledger: this.file,
      operation: op.id,
      origin: spendOrigin(op, bases),
      client: this.client,
      ...(which.file === undefined ? {} : { file: which.file }),
      ...(which.run === undefined ? {} : { run: which.run }),
      onError: this.failed,
      onClose: () => this.open.delete(recorder),
    });
    this.open.add(recorder);
    return recorder;
  }

  /**
   * Writes now what every open recorder counted (a run's, which the run closes itself): for a
   * client about to exit at once (the CLI's second Ctrl-C), so that nothing spent goes unrecorded.
   */
  flush(): void {
    for (const recorder of this.open) recorder.flush();
  }

  /** Records one paid call, a line of its own (`run`: the call's id, random by default). */
  recordOne(op: Operation, bases: Bases, run?: string): void {
    const recorder = this.recorder(op, bases, run === undefined ? {} : { run });
    recorder.add(1);
    recorder.close();
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: replacing control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f]/g;

/** A file's base name as a ledger line may hold it: no folder, no control character, at most 255. */
function baseName(path: string): string | undefined {
  const name = win32.basename(path).replace(CONTROLS, '?').slice(0, 255);
  return name === '' ? undefined : name;
}
