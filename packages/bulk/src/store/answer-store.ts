// The local answer cache, which is also the journal that makes bulk runs resumable.
// One JSON object per line (see journal-file.ts), appended as each paid answer arrives.
// - `key` is core's requestKey (operation + normalised input); `ns` names the service (its
//   normalised origin, or "sandbox"). Neither holds the API key, and nothing else in the line does.
// - Durable before done: put() resolves true only once the line is written AND fdatasync'd. Every
//   answer that arrives while one sync runs is covered by the next (group commit).
// - Never fatal to read: a line that is not an answer of ours (null, another shape, torn by a kill,
//   garbage) is skipped and counted in `unreadableLines`; a later line for the same key wins.
// - Never loses a paid answer silently: when a write or a sync fails (disk full), the store stops
//   writing, keeps that answer and every later one in memory (`unsaved`), and put() resolves false.
//   saveUnsaved() then tries the journal again (the caller frees space first), else a rescue file in
//   the temp directory that the next open of this cache imports, else reports what is lost.
// - Only an index (key -> byte offset) is in memory: it grows with distinct requests, not rows.
// - Answers older than maxAgeMs are not used (asked again; the new answer appended).
import { closeSync, existsSync, fdatasyncSync, ftruncateSync, mkdirSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import type { Outcome } from '@enrich/core';
import { ANSWER_CACHE, acquireLock, type FileLock } from './file-lock.js';
import { GroupCommit } from './group-commit.js';
import {
  asError,
  describeFailure,
  FORMAT_VERSION,
  fdatasyncAsync,
  type Line,
  parseLine,
  readLineAt,
  rescuePathFor,
  type SaveReport,
  scanLines,
  writeAll,
} from './journal-file.js';
import { readRescued, settleRescued, writeSideFile } from './rescue-files.js';

export { parseLine, type SaveReport } from './journal-file.js';

export interface AnswerStoreOptions {
  readonly path: string;
  readonly namespace: string;
  /** Answers older than this are ignored; Infinity keeps them forever. */
  readonly maxAgeMs: number;
  /** Dry runs only read: no lock, no file created. */
  readonly readOnly?: boolean;
  readonly now?: () => number;
  /** Applied to every line before it is written (the key scrubber). */
  readonly scrub?: (text: string) => string;
  /** Where answers that could not be journaled are rescued; the temp directory by default. */
  readonly rescueDir?: string;
  /** The shortest time between two syncs (group commit), 10 ms by default; bulk runs take longer. */
  readonly syncIntervalMs?: number;
  /** fdatasync by default; tests pass one they can hold back or make fail. */
  readonly syncFile?: (fd: number) => Promise<void>;
}

export class AnswerStore {
  readonly path: string;
  private readonly namespace: string;
  private readonly now: () => number;
  private readonly scrub: (text: string) => string;
  private readonly rescuePath: string;
  private readonly index = new Map<string, number>();
  private fd: number | undefined;
  private size = 0;
  private lock: FileLock | undefined;
  /** The file ends without a newline (a torn last line): the next append starts with one. */
  private needsNewline = false;
  private readonly commit: GroupCommit;
  /** Lines written but not yet known to be durable, by sequence number (kept for a failed sync). */
  private notDurable = new Map<number, { key: string; text: string }>();
  /** The first write or sync error; once set, nothing more is written this run. */
  failure: Error | undefined;
  /** Answers that arrived but are not known to be on disk, by key (JSON lines). */
  private readonly unsaved = new Map<string, string>();
  /** Answers read from a rescue file and not (yet) in the journal. */
  private readonly rescued = new Map<string, Outcome>();
  /** Lines of the file that could not be read as an answer (skipped). */
  unreadableLines = 0;
  /** Answers imported from the rescue file of an earlier run. */
  imported = 0;

  private constructor(options: AnswerStoreOptions) {
    this.path = options.path;
    this.namespace = options.namespace;
    this.now = options.now ?? Date.now;
    this.scrub = options.scrub ?? ((text) => text);
    this.rescuePath = rescuePathFor(options.path, options.rescueDir ?? tmpdir());
    const syncFile = options.syncFile ?? fdatasyncAsync;
    this.commit = new GroupCommit({
      intervalMs: options.syncIntervalMs ?? 10,
      isOpen: () => this.fd !== undefined,
      sync: () => syncFile(this.fd as number),
      onDurable: (seq) => {
        for (const written of this.notDurable.keys()) if (written <= seq) this.notDurable.delete(written);
      },
      onFailure: (error) => this.fail(error),
      failed: () => this.failure !== undefined,
    });
  }

  /** fdatasync calls made (each covers every line written before it). */
  get syncs(): number {
    return this.commit.syncs;
  }

  static open(options: AnswerStoreOptions): AnswerStore {
    const store = new AnswerStore(options);
    if (!options.readOnly) {
      mkdirSync(dirname(options.path), { recursive: true });
      store.lock = acquireLock(options.path, ANSWER_CACHE);
    }
    const oldest =
      options.maxAgeMs === Number.POSITIVE_INFINITY
        ? Number.NEGATIVE_INFINITY
        : store.now() - options.maxAgeMs;
    try {
      if (!options.readOnly || existsSync(options.path)) {
        store.fd = openSync(options.path, options.readOnly ? 'r' : 'a+');
        store.load(oldest);
      }
      store.importRescue(oldest, options.readOnly === true);
    } catch (error) {
      store.close();
      throw error;
    }
    return store;
  }

  /**
   * Keeps paid answers beside a cache that cannot be written now (another process holds its lock,
   * or its folder is unusable): a side file that every later open of this cache reads, and whose
   * answers the next writer moves into the journal (rescue-files.ts). Takes no lock.
   */
  static setAside(
    options: Pick<AnswerStoreOptions, 'path' | 'namespace' | 'now' | 'scrub' | 'rescueDir'>,
    answers: readonly { readonly key: string; readonly outcome: Outcome }[],
  ): SaveReport {
    const now = options.now ?? Date.now;
    const scrub = options.scrub ?? ((text: string) => text);
    const lines = answers.map(({ key, outcome }) =>
      scrub(
        JSON.stringify({ v: FORMAT_VERSION, ns: options.namespace, key, at: now(), outcome } satisfies Line),
      ),
    );
    const reason = 'the answer cache could not be written now';
    try {
      const rescuePath = writeSideFile(rescuePathFor(options.path, options.rescueDir ?? tmpdir()), lines);
      return { count: lines.length, where: 'rescue', rescuePath, reason };
    } catch (error) {
      return { count: lines.length, where: 'nowhere', reason: describeFailure(asError(error)) };
    }
  }

  /** Distinct requests with a fresh answer. */
  get count(): number {
    let n = this.index.size;
    for (const key of this.rescued.keys()) if (!this.index.has(key)) n++;
    return n;
  }

  /** Answers that arrived but are not (yet) known to be on disk. */
  get unsavedCount(): number {
    return this.unsaved.size;
  }

  has(key: string): boolean {
    return this.index.has(key) || this.rescued.has(key) || this.unsaved.has(key);
  }

  get(key: string): Outcome | undefined {
    const held = this.unsaved.get(key);
    if (held !== undefined) return (JSON.parse(held) as Line).outcome;
    const offset = this.index.get(key);
    if (offset !== undefined && this.fd !== undefined) {
      const line = parseLine(readLineAt(this.fd, offset));
      if (line) return line.outcome;
    }
    return this.rescued.get(key);
  }

  /**
   * Journals an answer. Resolves true once it is durably on disk (written and fdatasync'd), false
   * when it could not be (see `failure`): the answer is then held in memory for saveUnsaved().
   */
  async put(key: string, outcome: Outcome): Promise<boolean> {
    if (this.lock === undefined) throw new Error('The answer cache is open read-only');
    const line: Line = { v: FORMAT_VERSION, ns: this.namespace, key, at: this.now(), outcome };
    const text = this.scrub(JSON.stringify(line));
    if (this.failure) {
      this.unsaved.set(key, text);
      return false;
    }
    let offset: number;
    try {
      offset = this.append(text);
    } catch (error) {
      // Lines written before this one may still be synced: saveUnsaved() tries.
      this.failure ??= asError(error);
      this.unsaved.set(key, text);
      return false;
    }
    this.index.set(key, offset);
    const seq = this.commit.wrote();
    this.notDurable.set(seq, { key, text });
    return this.commit.waitDurable(seq);
  }

  /**
   * After a failure: writes the answers held in memory to the journal if it now can (the caller
   * frees what it can first), else to the rescue file, and says where they went.
   */
  saveUnsaved(): SaveReport | undefined {
    if (this.unsaved.size === 0 && !this.failure) return undefined;
    const reason = describeFailure(this.failure);
    // Lines written but not yet synced when a later write failed: a sync now makes them durable.
    if (this.notDurable.size > 0 && this.fd !== undefined) {
      try {
        fdatasyncSync(this.fd);
        this.notDurable.clear();
      } catch (error) {
        this.fail(error);
      }
    }
    const count = this.unsaved.size;
    if (count === 0) return { count, where: 'journal', reason };
    const lines = [...this.unsaved.values()].map((text) => `${text}\n`).join('');
    if (this.fd !== undefined) {
      try {
        this.append(lines.slice(0, -1));
        fdatasyncSync(this.fd);
        this.unsaved.clear();
        return { count, where: 'journal', reason };
      } catch {
        // Still no room: try elsewhere.
      }
    }
    let fd: number | undefined;
    try {
      mkdirSync(dirname(this.rescuePath), { recursive: true });
      fd = openSync(this.rescuePath, 'a', 0o600);
      writeAll(fd, Buffer.from(lines));
      fdatasyncSync(fd);
      this.unsaved.clear();
      return { count, where: 'rescue', rescuePath: this.rescuePath, reason };
    } catch {
      return { count, where: 'nowhere', reason };
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  close(): void {
    if (this.fd !== undefined) {
      if (this.lock && !this.failure) {
        try {
          fdatasyncSync(this.fd);
          this.commit.allDurable();
          this.notDurable.clear();
        } catch {
          // Every answer that counted as done was synced already.
        }
      }
      closeSync(this.fd);
      this.fd = undefined;
    }
    this.lock?.release();
    this.lock = undefined;
  }

  /** Syncs without waiting out the interval: no answer is on the way (see group-commit.ts). */
  syncSoon(): void {
    this.commit.syncSoon();
  }

  // A sync failed: from now on nothing is written; answers not known to be durable are held in memory.
  private fail(error: unknown): void {
    this.failure ??= asError(error);
    for (const { key, text } of this.notDurable.values()) this.unsaved.set(key, text);
    this.notDurable.clear();
  }

  /** Appends one line and returns its offset; a short write is undone, so no torn line is left. */
  private append(text: string): number {
    const fd = this.fd as number;
    const prefix = this.needsNewline ? '\n' : '';
    const buffer = Buffer.from(`${prefix}${text}\n`);
    try {
      writeAll(fd, buffer);
    } catch (error) {
      try {
        ftruncateSync(fd, this.size);
      } catch {
        // The next load skips a torn line anyway.
      }
      throw error;
    }
    const offset = this.size + prefix.length;
    this.size += buffer.length;
    this.needsNewline = false;
    return offset;
  }

  private load(oldest: number): void {
    const { size, torn } = scanLines(this.fd as number, (text, offset) =>
      this.indexLine(text, offset, oldest),
    );
    this.size = size;
    // A torn last line (the process died mid-write) is skipped; the next append starts a new line.
    if (torn) {
      this.unreadableLines++;
      this.needsNewline = true;
    }
  }

  private indexLine(text: string, offset: number, oldest: number): void {
    if (text.trim() === '') return;
    const line = parseLine(text);
    if (!line) {
      this.unreadableLines++;
      return;
    }
    if (line.ns !== this.namespace || line.at < oldest) return;
    this.index.set(line.key, offset);
  }

  // Answers an earlier run or another process set aside (rescue-files.ts): read them; when writing,
  // move them into the journal.
  private importRescue(oldest: number, readOnly: boolean): void {
    const rescued = readRescued(this.rescuePath, this.namespace, oldest);
    for (const { line } of rescued.lines) this.rescued.set(line.key, line.outcome);
    if (readOnly || this.fd === undefined || rescued.files.length === 0) return;
    for (const { raw, line } of rescued.lines) {
      if (this.index.has(line.key)) continue; // the journal has a fresh answer already
      this.index.set(line.key, this.append(raw));
      this.imported++;
    }
    if (this.imported > 0) fdatasyncSync(this.fd);
    this.rescued.clear();
    settleRescued(rescued);
  }
}
