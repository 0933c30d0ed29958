// A bulk run: the CSV in, the enriched CSV out, row for row and in order, paying at most once for
// each distinct valid request.
//
// How a run survives being killed: every paid answer is appended to the answer cache (the journal)
// the moment it arrives, and its row counts as done only once the answer is durably there; the
// output is written to <out>.partial and renamed over <out> only when every row is in it. Running
// the same command again reads the file from the top, answers what the journal already holds
// without sending anything, sends the rest, and writes the whole output again.
//
// How it stops: on Ctrl-C (the signal) nothing more is sent and every wait ends; requests on the
// wire get graceMs to answer (their answers are journaled), then are abandoned and counted as
// "may have been paid". When the journal cannot be written (disk full) the run stops sending, keeps
// the answers that could not be written in memory, removes its partial output to free space, and
// saves them (journal, else a rescue file); the summary says where.

import { once, setMaxListeners } from 'node:events';
import { closeSync, createWriteStream, fsyncSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Operation } from '@enrich/core';
import { type Options as StringifyOptions, stringify } from 'csv-stringify';
import { AnswerStore, type SaveReport } from './answer-store.js';
import { BoundedMap } from './bounded-map.js';
import { openCsv, rowPlanner } from './csv-rows.js';
import { CommandError, EXIT } from './exit-codes.js';
import { ExtraColumns } from './extra-columns.js';
import { acquireLock, type FileLock } from './file-lock.js';
import type { ProgressReporter } from './progress.js';
import { invalidResult, isUnreadable, kindOf, type RowResult, resultOf } from './row-result.js';
import { Sender, type SenderOptions, type StopReason } from './sender.js';

export interface BulkOptions {
  readonly op: Operation;
  readonly inPath: string;
  readonly outPath: string;
  readonly cachePath: string;
  /** How to name the three files in the summary (as the user gave them); the paths by default. */
  readonly display?: (path: string) => string;
  /** Which service answered: answers of another one are never reused. */
  readonly namespace: string;
  readonly maxAgeMs: number;
  /** Output columns, as core's chooseColumns gives them. */
  readonly columns: readonly string[];
  readonly overrides: Readonly<Record<string, string>>;
  readonly sender: Omit<SenderOptions, 'op'>;
  readonly progress?: ProgressReporter;
  readonly signal?: AbortSignal;
  /** Rows held while waiting for an answer before reading pauses. */
  readonly windowRows?: number;
  /** Answers kept in memory; the rest are read back from the cache file. */
  readonly memoryAnswers?: number;
  /** Namespaces of earlier versions whose answers are this service's too. */
  readonly alsoReads?: readonly string[];
  /** How long requests in flight may still answer after the signal (then they are abandoned). */
  readonly graceMs?: number;
  /** Aborted to abandon requests in flight; the transport should be given its signal too. */
  readonly abandon?: AbortController;
  /** Applied to every string written: journal lines, the output (the key scrubber). */
  readonly scrub?: (text: string) => string;
  /** Add a column for every field an answer has that the description does not list (no --fields). */
  readonly allExtras?: boolean;
  /** Ask again (and pay again) for requests whose cached answer is paid-unreadable. */
  readonly retryUnreadable?: boolean;
  /** Where answers that could not be journaled go (default: the temp directory). */
  readonly rescueDir?: string;
}

/** Requests on the wire get this long after Ctrl-C; with the rest of the shutdown, under 10 s. */
export const GRACE_MS = 8000;

export interface InvalidExample {
  /** As a spreadsheet numbers it: the header is row 1. */
  readonly row: number;
  readonly message: string;
}

export interface BulkSummary {
  readonly operation: string;
  readonly input: string;
  readonly output: string;
  readonly cache: string;
  /** Data rows read (the header not counted). */
  rows: number;
  blank: number;
  /** Invalid rows, blank ones included. */
  invalid: number;
  /** Distinct valid requests in the file. */
  distinct: number;
  /** Of those, answered from the cache of an earlier run. */
  fromCache: number;
  /** Transactions this run spent (billable answers). */
  transactions: number;
  ok: number;
  /** Of the ok rows, those whose answer differed from the API description. */
  notAsDocumented: number;
  noMatch: number;
  /** Rows whose answer was paid for but could not be read (cut, too big, not JSON). */
  unreadable: number;
  /** Requests asked again because their cached answer was unreadable (--retry-unreadable). */
  askedAgain: number;
  /** Extra columns added for fields the description does not list. */
  extraColumns: string[];
  /** Rows whose request failed after its retries. */
  errors: number;
  /** Rows never sent because the run stopped sending (budget, refused key, allowance, outage). */
  notSent: number;
  /** Requests sent, and HTTP attempts (retries included), and 429 answers among them. */
  requests: number;
  attempts: number;
  throttled: number;
  invalidExamples: InvalidExample[];
  stopped: StopReason | undefined;
  /** When the service said to come back (a Retry-After over the cap), as an ISO date. */
  resumeAt: string | undefined;
  /** Requests abandoned in flight when the run was interrupted: the service may have billed them. */
  abandoned: number;
  /** Lines of the cache file that could not be read (skipped). */
  unreadableCacheLines: number;
  /** Answers an earlier run could not journal, imported from its rescue file. */
  rescuedImported: number;
  /** When the journal could not be written: where the answers that arrived went. */
  unsaved: SaveReport | undefined;
  /** Why the output file could not be written, if it could not. */
  outputError: string | undefined;
  /** False when interrupted or stopped by a file problem: the output was not written. */
  completed: boolean;
  elapsedMs: number;
}

const EXAMPLES = 5;

export function outputHeader(op: Operation, header: readonly string[], columns: readonly string[]): string[] {
  // An output column named like an input column would make two columns of one name.
  const taken = new Set(header.map((h) => h.toLowerCase()));
  const name = (column: string) => (taken.has(column.toLowerCase()) ? `${column} (${op.id})` : column);
  return [...header, ...columns.map(name), name('status')];
}

export async function runBulk(options: BulkOptions): Promise<BulkSummary> {
  const { op, columns, signal } = options;
  const now = options.sender.now;
  const startedAt = now();
  const csv = await openCsv(op, options.inPath, options.overrides);
  const plan = rowPlanner(op, csv.header, csv.mapping);
  let store: AnswerStore;
  try {
    store = AnswerStore.open({
      path: options.cachePath,
      namespace: options.namespace,
      maxAgeMs: options.maxAgeMs,
      now,
      ...(options.alsoReads ? { alsoReads: options.alsoReads } : {}),
      ...(options.scrub ? { scrub: options.scrub } : {}),
      ...(options.rescueDir ? { rescueDir: options.rescueDir } : {}),
    });
  } catch (error) {
    csv.close();
    if (error instanceof CommandError) throw error;
    throw new CommandError(
      `Cannot use the answer cache ${options.cachePath}: ${(error as Error).message}`,
      EXIT.usage,
    );
  }
  let outputLock: FileLock;
  try {
    mkdirSync(dirname(options.outPath), { recursive: true });
    outputLock = acquireLock(options.outPath, 'output');
  } catch (error) {
    csv.close();
    store.close();
    if (error instanceof CommandError) throw error;
    throw new CommandError(`Cannot write ${options.outPath}: ${(error as Error).message}`, EXIT.usage);
  }
  const abandon = options.abandon ?? new AbortController();
  // Each request in flight listens for it (as many as --concurrency): not a leak.
  setMaxListeners(0, abandon.signal);
  const sender = new Sender({
    ...options.sender,
    op,
    abandonSignal: abandon.signal,
    mayNotSend: () =>
      store.failure ? `the answer cache could not be written (${describeError(store.failure)})` : undefined,
  });
  const summary: BulkSummary = {
    operation: op.id,
    input: (options.display ?? String)(options.inPath),
    output: (options.display ?? String)(options.outPath),
    cache: (options.display ?? String)(options.cachePath),
    rows: 0,
    blank: 0,
    invalid: 0,
    distinct: 0,
    fromCache: 0,
    transactions: 0,
    ok: 0,
    notAsDocumented: 0,
    noMatch: 0,
    unreadable: 0,
    askedAgain: 0,
    extraColumns: [],
    errors: 0,
    notSent: 0,
    requests: 0,
    attempts: 0,
    throttled: 0,
    invalidExamples: [],
    stopped: undefined,
    resumeAt: undefined,
    abandoned: 0,
    unreadableCacheLines: store.unreadableLines,
    rescuedImported: store.imported,
    unsaved: undefined,
    outputError: undefined,
    completed: false,
    elapsedMs: 0,
  };

  const tempPath = `${options.outPath}.partial`;
  const file = createWriteStream(tempPath);
  // The output's disk can fill too: stop (every answer so far is in the journal) rather than crash.
  let outputError: Error | undefined;
  file.on('error', (error) => {
    outputError ??= error;
    sender.halt(`the output ${tempPath} could not be written (${describeError(error)})`);
    wakeOnAbort();
  });
  // A larger buffer than Node's 16 objects, so that reading pauses for the disk less often.
  const out = stringify({ highWaterMark: 256 } as StringifyOptions);
  const scrub = options.scrub ?? ((text: string) => text);
  writeInBatches(out, file, scrub);
  const extras = options.allExtras ? new ExtraColumns(tempPath, (error) => file.destroy(error)) : undefined;
  out.write(outputHeader(op, csv.header, columns));

  // Rows read but not yet written, oldest first; a row waits here for its answer.
  interface Slot {
    result: RowResult | undefined;
  }
  interface Entry {
    fields: string[];
    result: RowResult | undefined;
    slot: Slot | undefined;
  }
  const window: (Entry | undefined)[] = [];
  let head = 0;
  let bytesRead = 0;
  // Enough rows ahead of the oldest unanswered one to keep every connection busy while it waits
  // (seconds at full speed), and few enough that rows do not pile up in memory: rows held long
  // outlive the garbage collector's young generation and swell the heap.
  const windowRows = options.windowRows ?? Math.max(1024, options.sender.concurrency * 64);
  let roomWaiter: (() => void) | undefined;
  const pending = new Map<string, Slot>();
  const tasks = new Set<Promise<void>>();
  const seen = new Set<string>();
  const answers = new BoundedMap<string, RowResult>(options.memoryAnswers ?? 20_000);
  let failure: unknown;
  const width = csv.header.length;

  const write = (entry: Entry, result: RowResult) => {
    const fields = entry.fields.length === width ? entry.fields : fit(entry.fields, width);
    // The row's own array, extended in place: it is not needed after this.
    for (const value of result.cells) fields.push(value);
    fields.push(result.status);
    out.write(fields);
    void extras?.add(result.extra, scrub);
    const kind = kindOf(result);
    if (kind === 'ok') {
      summary.ok++;
      if (result.mismatches) summary.notAsDocumented++;
    } else if (kind === 'no-match') summary.noMatch++;
    else if (kind === 'unreadable') summary.unreadable++;
    else if (kind === 'invalid') summary.invalid++;
    else if (result.status.startsWith('error: not sent')) summary.notSent++;
    else summary.errors++;
  };
  const flush = () => {
    while (head < window.length) {
      const entry = window[head] as Entry;
      const result = entry.result ?? entry.slot?.result;
      if (!result) break;
      write(entry, result);
      window[head++] = undefined;
    }
    if (head > 4096 && head * 2 > window.length) {
      window.splice(0, head);
      head = 0;
    }
    if (roomWaiter && window.length - head < windowRows) {
      const wake = roomWaiter;
      roomWaiter = undefined;
      wake();
    }
  };
  // Stops reading rows: the run is ending.
  let ending: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => {
    ending = resolve;
  });
  const wakeOnAbort = () => {
    roomWaiter?.();
    roomWaiter = undefined;
    ending();
  };
  let graceTimer: NodeJS.Timeout | undefined;
  const onSignal = () => {
    sender.cancel();
    wakeOnAbort();
    graceTimer = setTimeout(() => abandon.abort(), options.graceMs ?? GRACE_MS);
  };
  if (signal?.aborted) onSignal();
  else signal?.addEventListener('abort', onSignal, { once: true });
  let journalBroken = false;

  // Keys asked again this run for --retry-unreadable: at most once each, whatever comes back.
  const askedAgain = new Set<string>();
  const answerFor = (key: string): RowResult | undefined => {
    const remembered = answers.get(key);
    if (remembered) return remembered;
    const stored = store.get(key);
    if (!stored) return undefined;
    if (options.retryUnreadable && isUnreadable(stored) && !askedAgain.has(key) && !pending.has(key)) {
      askedAgain.add(key);
      summary.askedAgain++;
      return undefined;
    }
    if (askedAgain.has(key) && pending.has(key)) return undefined;
    const result = resultOf(op, stored, columns);
    answers.set(key, result);
    return result;
  };

  const ask = (key: string, input: Parameters<Sender['send']>[0]): Slot => {
    const slot: Slot = { result: undefined };
    pending.set(key, slot);
    // Journal first: once the answer is durably on disk, no later run pays for it again. A row
    // whose answer is not durable is not done (and the run stops: see saveUnsaved).
    const task = sender
      .send(input, (outcome) => store.put(key, outcome))
      .then((sent) => {
        let result: RowResult;
        if (sent.sent) {
          if (sent.billable && !sent.kept) {
            journalBroken = true;
            wakeOnAbort();
            return;
          }
          result = resultOf(op, sent.outcome, columns);
        } else {
          result = { status: `error: ${sent.reason}`, cells: columns.map(() => '') };
        }
        slot.result = result;
        pending.delete(key);
        answers.set(key, result);
        flush();
      })
      .catch((error: unknown) => {
        // A failure of ours (the cache file cannot be written, say) ends the run.
        failure ??= error;
        wakeOnAbort();
      });
    tasks.add(task);
    void task.finally(() => tasks.delete(task));
    return slot;
  };

  options.progress?.start(csv.sizeBytes, () => ({
    rows: summary.rows,
    written: summary.ok + summary.noMatch + summary.invalid + summary.errors + summary.notSent,
    bytes: bytesRead,
    transactions: sender.spent,
  }));

  try {
    for (;;) {
      if (signal?.aborted || failure || journalBroken || outputError) break;
      const next = await csv.rows.next();
      if (next.done) break;
      const row = next.value;
      summary.rows++;
      bytesRead = row.bytes;
      const entry: Entry = { fields: row.fields, result: undefined, slot: undefined };
      const planned = plan(row.fields);
      if (planned.kind !== 'request') {
        if (planned.kind === 'blank') summary.blank++;
        // Blank rows explain themselves; the examples show the rows that need mending.
        else if (summary.invalidExamples.length < EXAMPLES) {
          summary.invalidExamples.push({ row: row.row, message: planned.message });
        }
        entry.result = invalidResult(planned.message, columns);
      } else {
        const { key } = planned;
        const first = !seen.has(key);
        if (first) {
          seen.add(key);
          summary.distinct++;
        }
        entry.result = answerFor(key);
        if (first && entry.result) summary.fromCache++;
        if (!entry.result) entry.slot = pending.get(key) ?? ask(key, planned.input);
      }
      window.push(entry);
      flush();
      if (window.length - head >= windowRows) {
        await new Promise<void>((resolve) => {
          roomWaiter = resolve;
        });
      }
      if (out.writableNeedDrain) await Promise.race([once(out, 'drain'), ended]);
    }
    // What was sent is waited for even when interrupted: its answers are paid for, so journal them.
    // (On Ctrl-C only for graceMs: then the sender abandons them and they settle at once.)
    while (tasks.size > 0) await Promise.all([...tasks]);
    if (failure) throw failure;
    flush();
    summary.completed = !signal?.aborted && !journalBroken && !outputError;
  } finally {
    clearTimeout(graceTimer);
    signal?.removeEventListener('abort', onSignal);
    options.progress?.stop();
    csv.close();
    out.end();
    await finished(file).catch(() => undefined);
    if (outputError) summary.completed = false;
    summary.transactions = sender.spent;
    summary.requests = sender.started;
    summary.attempts = sender.attempts;
    summary.throttled = sender.throttled;
    summary.abandoned = sender.abandoned;
    summary.resumeAt = sender.resumeAt === undefined ? undefined : new Date(sender.resumeAt).toISOString();
    summary.stopped = sender.stopReason === 'interrupted' ? undefined : sender.stopReason;
    summary.outputError = outputError ? describeError(outputError) : undefined;
    try {
      await extras?.close();
      if (summary.completed && extras && extras.names.size > 0) {
        // Some answers carried fields the description does not list: add their columns.
        summary.extraColumns = [...extras.names];
        const merged = `${options.outPath}.merged.partial`;
        const taken = new Set(outputHeader(op, csv.header, columns).map((h) => h.toLowerCase()));
        await extras.merge(tempPath, merged, (name) =>
          taken.has(name.toLowerCase()) ? `${name} (${op.id})` : name,
        );
        rmSync(tempPath, { force: true });
        fsyncFile(merged);
        renameSync(merged, options.outPath);
      } else if (summary.completed) {
        fsyncFile(tempPath);
        renameSync(tempPath, options.outPath);
      } else {
        // Also frees the space the partial output took, which the unsaved answers may need.
        rmSync(tempPath, { force: true });
      }
    } finally {
      extras?.discard();
      summary.unsaved = store.saveUnsaved();
      store.close();
      outputLock.release();
      summary.elapsedMs = now() - startedAt;
    }
  }
  return summary;
}

function describeError(error: Error | undefined): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC') return 'the disk is full';
  if (code === 'EDQUOT') return 'the disk quota is used up';
  return error?.message ?? 'unknown error';
}

const BATCH_CHARS = 64 * 1024;

/**
 * Pipes the CSV text to the file in chunks of about 64 KB. (Piped as is, every row would be one
 * write call: at hundreds of rows a second that is most of the command's CPU time spent on the
 * output file.)
 */
function writeInBatches(csv: Readable, file: Writable, scrub: (text: string) => string): void {
  let batch = '';
  csv.setEncoding('utf8');
  csv.on('data', (text: string) => {
    batch += text;
    if (batch.length < BATCH_CHARS) return;
    // Batches end at row boundaries, so a key inside a cell is never split between two of them.
    const full = file.write(scrub(batch));
    batch = '';
    if (!full) {
      csv.pause();
      file.once('drain', () => csv.resume());
    }
  });
  csv.on('end', () => file.end(scrub(batch)));
  csv.on('error', (error) => file.destroy(error));
}

function fit(fields: string[], width: number): string[] {
  if (fields.length > width) return fields.slice(0, width);
  return [...fields, ...Array.from({ length: width - fields.length }, () => '')];
}

function fsyncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
