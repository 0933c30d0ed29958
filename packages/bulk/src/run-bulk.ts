// A bulk run: the file in, the enriched file out, row for row and in order, paying at most once
// for each distinct valid request. The input is read by its kind's row source (row-source.ts: CSV,
// JSON Lines, a workbook) and the output written in its kind's format (row-format.ts); between
// them every run is the same: plan each row, send what is new, journal each answer, write in order.
//
// How a run survives being killed: every paid answer is appended to the answer cache (the journal)
// the moment it arrives, and its row counts as done only once the answer is durably there; the
// output is written to <out>.partial and renamed over <out> only when every row is in it. Running
// the same command again reads the file from the top, answers what the journal already holds
// without sending anything, sends the rest, and writes the whole output again.
//
// How it stops: on the signal (Ctrl-C, Cancel) nothing more is sent and every wait ends; requests
// on the wire get graceMs to answer (their answers are journaled), then are abandoned and counted
// as "may have been paid". When the journal cannot be written (disk full) the run stops sending,
// keeps the answers that could not be written in memory, removes its partial output to free space,
// and saves them (journal, else a rescue file); the summary says where.
//
// The pipeline: rows are read in batches and planned (blank, invalid, or which request); a new
// distinct request goes to the sender, which keeps `concurrency` on the wire. A row whose result is
// known is written at once if nothing before it waits; otherwise it queues behind the rows that do,
// in memory up to the window, then on disk, rendered (row-queue.ts). So reading, planning and
// rendering go on while answers are awaited; reading pauses only when too many requests wait for
// an answer or the output's disk is behind, and memory is bounded by both, not by the file.
import { setMaxListeners } from 'node:events';
import { setImmediate } from 'node:timers/promises';
import type { CleanInput, Operation } from '@enrich/core';
import { BoundedMap } from './bounded-map.js';
import { BreakdownCounter } from './breakdown-counter.js';
import { BulkError } from './bulk-error.js';
import type { BulkHooks, BulkOptions } from './bulk-options.js';
import { openSource } from './open-source.js';
import { OutputFile } from './output-file.js';
import { formatFor } from './output-kind.js';
import { startProgress } from './progress.js';
import { RequestQueue } from './request-queue.js';
import { mapInput, type PlannedRow, rowPlanner } from './row-planner.js';
import { RowQueue } from './row-queue.js';
import {
  invalidResult,
  isUnreadable,
  neutralise,
  type RowResult,
  resultOf,
  unansweredResult,
} from './row-result.js';
import type { RowBatch } from './row-source.js';
import { describeError, openFiles } from './run-files.js';
import { paceSummary, Sender } from './sender.js';
import {
  type BulkSummary,
  countCode,
  countRow,
  emptySummary,
  INVALID_EXAMPLES,
  kindCode,
  rowsWritten,
} from './summary.js';
import type { Pending } from './window.js';

/** Requests on the wire get this long after Ctrl-C; with the rest of the shutdown, under 10 s. */
export const GRACE_MS = 8000;

export function outputHeader(op: Operation, header: readonly string[], columns: readonly string[]): string[] {
  const name = columnNamer(op, header);
  return [...header, ...columns.map(name), name('status')];
}

// The name of a column the run adds: through core's formula rule (an extra column is named by the
// service, and a name like =HYPERLINK(...) or @x must not become a formula in the header); then, as
// an output column named like an input column would make two columns of one name, set apart. The
// input's own header is the user's and is written as it is (README: "Names in the header").
function columnNamer(op: Operation, header: readonly string[]): (column: string) => string {
  const taken = new Set(header.map((h) => h.toLowerCase()));
  return (column) => {
    const name = neutralise(column);
    return taken.has(name.toLowerCase()) ? `${name} (${op.id})` : name;
  };
}

export async function runBulk(options: BulkOptions, hooks: BulkHooks = {}): Promise<BulkSummary> {
  const { op, columns } = options;
  const { signal } = hooks;
  const now = options.sender.now;
  const startedAt = now();
  const input = await openSource(options.inPath, options.layout);
  let plan: ReturnType<typeof rowPlanner>;
  try {
    plan = rowPlanner(op, input.header, mapInput(op, options.inPath, input.header, options.overrides));
  } catch (error) {
    input.close();
    throw error;
  }
  const format = formatFor(options.outPath, {
    inputKind: input.kind,
    inputHeader: input.header,
    header: outputHeader(op, input.header, columns),
    layout: input.layout,
    sheet: input.sheet,
  });
  const { store, outputLock } = await openFiles(options, format, () => input.close());
  const abandon = options.abandon ?? new AbortController();
  // Each request in flight listens for it (as many as the concurrency): not a leak.
  setMaxListeners(0, abandon.signal);
  const sender = new Sender({
    ...options.sender,
    op,
    abandonSignal: abandon.signal,
    mayNotSend: () =>
      store.failure ? `the answer cache could not be written (${describeError(store.failure)})` : undefined,
  });
  const display = options.display ?? String;
  const summary = emptySummary({
    operation: op.id,
    input: display(options.inPath),
    output: display(options.outPath),
    cache: display(options.cachePath),
  });
  summary.layout = input.layout;
  summary.inputKind = input.kind;
  summary.found = input.found;
  summary.unreadableCacheLines = store.unreadableLines;
  summary.rescuedImported = store.imported;

  let stopping = false;
  // Ends every wait of the reading loop: the run is ending.
  const stopReading = () => {
    stopping = true;
    wake?.();
  };
  // The reading loop's one wait (for the output's disk, or for requests to leave the queue).
  let wake: (() => void) | undefined;
  const waitFor = async (until: Promise<unknown> | undefined) => {
    await new Promise<void>((resolve) => {
      wake = resolve;
      void until?.then(() => resolve());
    });
    wake = undefined;
  };
  const output = new OutputFile(options.outPath, format, options.scrub ?? ((text) => text), {
    allExtras: options.allExtras === true,
    onError: (error) => {
      // The output's disk can fill too: stop (every answer so far is in the journal) rather than crash.
      sender.halt(`the output ${options.outPath}.partial could not be written (${describeError(error)})`);
      stopReading();
    },
  });
  output.writeHeader();

  // Rows in memory between reading and writing; past them, rows wait on disk (see row-queue.ts).
  const queue = new RowQueue(options.windowRows ?? 4096, `${options.outPath}.spill`, output, {
    row: (result) => countRow(summary, result),
    code: kindCode,
    line: (code) => countCode(summary, code),
  });
  const pending = new Map<string, Pending<RowResult>>();
  // Requests waiting for an answer (queued or on the wire) before reading pauses: a bound on the
  // memory they take (a few hundred bytes each), and far enough ahead that a file whose distinct
  // requests come first does not hold up the reading of the rest (which then spills to disk while
  // the answers come) until the last few thousand are sent.
  const maxPending = Math.max(8192, sender.maxInFlight * 256);
  const tasks = new Set<Promise<void>>();
  const seen = new Set<string>();
  const answers = new BoundedMap<string, RowResult>(options.memoryAnswers ?? 20_000);
  // The rows of blank and invalid inputs, one per reason (files repeat their mistakes too).
  const invalidRows = new BoundedMap<string, RowResult>(1000);
  // What came back, counted as rows are read (see breakdown-counter.ts); rows waiting for a
  // request's answer, by its key, count when it arrives.
  const breakdown = new BreakdownCounter(op);
  const waitingRows = new Map<string, number>();
  let failure: unknown;
  let journalBroken = false;
  let bytesRead = 0;

  const flush = () => {
    try {
      queue.flush();
    } catch (error) {
      // Reading the spill back failed (its disk is full, say): stop as when the output's is.
      output.fail(error as Error);
    }
  };

  // Whatever ends the run early (a bug, a file that cannot be written), nothing more is sent: what
  // waits to be sent would be paid for and then lost with the journal closed.
  const fail = (error: unknown) => {
    failure ??= error;
    sender.halt(`the run failed (${describeError(error as Error)})`);
    stopReading();
  };

  let graceTimer: NodeJS.Timeout | undefined;
  const onSignal = () => {
    sender.cancel();
    stopReading();
    graceTimer = setTimeout(() => abandon.abort(), options.graceMs ?? GRACE_MS);
  };
  if (signal?.aborted) onSignal();
  else signal?.addEventListener('abort', onSignal, { once: true });

  // Keys asked again this run for retryUnreadable: at most once each, whatever comes back.
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

  // Requests handed to the sender whose answers have not arrived: twice its concurrency, so that its
  // own queue has the next request ready when a slot frees. An answer waiting for the journal's
  // sync no longer counts (counting it made a slow sync hold back sending).
  let onTheWay = 0;
  const queued = new RequestQueue<{ key: string; input: CleanInput; slot: Pending<RowResult> }>(
    () => onTheWay < sender.maxInFlight * 2,
    ({ key, input, slot }) => start(key, input, slot),
  );

  const ask = (key: string, input: CleanInput): Pending<RowResult> => {
    const slot: Pending<RowResult> = { result: undefined };
    pending.set(key, slot);
    queued.push({ key, input, slot });
    return slot;
  };

  const start = (key: string, input: CleanInput, slot: Pending<RowResult>) => {
    onTheWay++;
    let arrived = false;
    const answerArrived = () => {
      if (arrived) return;
      arrived = true;
      onTheWay--;
      queued.startWhatFits();
      // Nothing more on the way (the last answers of the run, or of a pause): sync them now.
      if (onTheWay === 0) store.syncSoon();
    };
    // Journal first: once the answer is durably on disk, no later run pays for it again. A row
    // whose answer is not durable is not done (and the run stops: see saveUnsaved). The line is
    // written before the next request is handed over (put() writes before it first awaits).
    const task = sender
      .send(input, (outcome) => {
        const kept = store.put(key, outcome);
        answerArrived();
        return kept;
      })
      .then((sent) => {
        if (sent.sent && sent.billable && !sent.kept) {
          journalBroken = true;
          stopReading();
          return;
        }
        const result = sent.sent
          ? resultOf(op, sent.outcome, columns)
          : unansweredResult(sent.reason, columns, sent.mayHaveBeenPaid === true);
        slot.result = result;
        pending.delete(key);
        answers.set(key, result);
        breakdown.add(result, waitingRows.get(key));
        waitingRows.delete(key);
        flush();
        if (pending.size < maxPending) wake?.();
      })
      .catch((error: unknown) => {
        // A failure of ours (the cache file cannot be written, say) ends the run: nothing more is
        // sent, and what is on the wire is still awaited (and journaled) below.
        fail(error);
      })
      .finally(() => {
        tasks.delete(task);
        answerArrived();
      });
    tasks.add(task);
  };

  // One row: its result now (invalid, or known), or the pending request it waits for.
  const resultFor = (planned: PlannedRow, row: number): RowResult | Pending<RowResult> => {
    if (planned.kind !== 'request') {
      if (planned.kind === 'blank') summary.blank++;
      // Blank rows explain themselves; the examples show the rows that need mending.
      else if (summary.invalidExamples.length < INVALID_EXAMPLES) {
        summary.invalidExamples.push({ row, message: planned.message });
      }
      // A long row's result holds its own fields past the header: its own, not shared.
      if (planned.kind === 'invalid' && planned.trailing) {
        return { ...invalidResult(planned.message, columns), trailing: planned.trailing };
      }
      let result = invalidRows.get(planned.message);
      if (!result) {
        result = invalidResult(planned.message, columns, planned.kind === 'blank');
        invalidRows.set(planned.message, result);
      }
      return result;
    }
    const { key } = planned;
    const first = !seen.has(key);
    if (first) {
      seen.add(key);
      summary.distinct++;
    }
    const known = answerFor(key);
    if (known) {
      if (first) summary.fromCache++;
      breakdown.add(known);
      return known;
    }
    waitingRows.set(key, (waitingRows.get(key) ?? 0) + 1);
    return pending.get(key) ?? ask(key, planned.input);
  };

  const progress = startProgress(hooks, input.sizeBytes, () => ({
    rows: summary.rows,
    written: rowsWritten(summary),
    bytes: bytesRead,
    transactions: sender.spent,
    throttled: sender.throttled,
    pace: sender.reading(),
  }));

  // The reading loop. A file that breaks off mid-way (a stray quote at row 4,001, say) stops the
  // sending at once; the requests on the wire are waited for and journaled, and the summary says
  // what was spent and where the file broke.
  const readRows = async () => {
    read: for (;;) {
      if (stopping || failure) break;
      let batch: RowBatch | undefined;
      try {
        batch = await input.nextBatch();
      } catch (error) {
        if (!(error instanceof BulkError)) throw error;
        summary.inputError = error.message;
        sender.halt(error.message, 'input');
        stopReading();
        break;
      }
      if (!batch) break;
      bytesRead = batch.bytes;
      const { records, originals } = batch;
      for (let i = 0; i < records.length; i++) {
        if (stopping || failure) break read;
        const fields = records[i] as string[];
        summary.rows++;
        const result = resultFor(plan(fields), batch.firstRow + i);
        try {
          // A row with an original (a JSON Lines line, a workbook's typed cells) is rendered now,
          // while its original is at hand; a CSV row's fields are its text, rendered when written.
          queue.add(originals ? output.renderFields(fields, originals[i]) : fields, result);
        } catch (error) {
          // The spill's disk is full: stop as when the output's is.
          output.fail(error as Error);
          break read;
        }
        if (pending.size >= maxPending) {
          flush();
          await waitFor(undefined);
        }
      }
      flush();
      if (output.needsDrain) await waitFor(output.drained());
      // Between batches, answers that arrived meanwhile are taken (and the next requests sent):
      // a batch ready in the parser would otherwise follow the last one without a turn of the event
      // loop, and answers would wait for whole chunks of the file to be read.
      else if (tasks.size > 0) await setImmediate();
    }
  };

  try {
    await readRows().catch(fail);
    // What was sent is waited for even when interrupted: its answers are paid for, so journal them.
    // (On Ctrl-C only for graceMs: then the sender abandons them and they settle at once.)
    while (tasks.size > 0) await Promise.all([...tasks]);
    if (failure) throw failure;
    // The rows still on disk go out as fast as the output's disk takes them.
    for (;;) {
      flush();
      if (stopping || queue.isEmpty || !output.needsDrain) break;
      await waitFor(output.drained());
    }
    summary.completed =
      !signal?.aborted && !journalBroken && output.error === undefined && summary.inputError === undefined;
    if (summary.completed && !queue.isEmpty) throw new Error('rows were left unwritten (a bug)');
  } finally {
    clearTimeout(graceTimer);
    signal?.removeEventListener('abort', onSignal);
    input.close();
    queue.close();
    await output.close();
    if (output.error) summary.completed = false;
    summary.transactions = sender.spent;
    summary.requests = sender.started;
    summary.attempts = sender.attempts;
    summary.throttled = sender.throttled;
    summary.pace = paceSummary(sender);
    summary.abandoned = sender.abandoned;
    summary.unanswered = sender.unanswered;
    summary.resumeAt = sender.resumeAt === undefined ? undefined : new Date(sender.resumeAt).toISOString();
    summary.stopped = sender.stopReason === 'interrupted' ? undefined : sender.stopReason;
    summary.outputError = output.error ? describeError(output.error) : undefined;
    // Of a complete run only: an incomplete one writes no output for it to describe.
    summary.breakdown = summary.completed ? breakdown.breakdown(summary) : undefined;
    try {
      summary.extraColumns = await output.finish(
        summary.completed,
        columnNamer(op, outputHeader(op, input.header, columns)),
      );
    } finally {
      summary.unsaved = store.saveUnsaved();
      store.close();
      outputLock.release();
      summary.elapsedMs = now() - startedAt;
      progress.stop();
    }
  }
  return summary;
}
