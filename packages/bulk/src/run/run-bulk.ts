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
//
// BulkRun holds the run's state as fields; its steps are named: read (the reading loop), resultFor
// (one row), answer (a request's answer arrives), write (rows out in order), finish. Requests on
// their way are run-requests.ts's; results known without sending, known-results.ts's.
import { dirname, join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { paceToRemember } from '@enrich/core';
import type { RowSource } from '../formats/row-source.js';
import { PaceMemory } from '../sending/pace-memory.js';
import { PACE_RUNS_FOLDER, PaceNeighbours } from '../sending/pace-neighbours.js';
import { Sender } from '../sending/sender.js';
import { StoreClaims } from '../store/store-claims.js';
import { BreakdownCounter } from './breakdown-counter.js';
import { BulkError } from './bulk-error.js';
import type { BulkOptions } from './bulk-options.js';
import { KnownResults } from './known-results.js';
import { columnNamer, outputHeader } from './output-columns.js';
import { OutputFile } from './output-file.js';
import { startProgress } from './progress.js';
import type { PlannedRow } from './row-planner.js';
import { RowQueue } from './row-queue.js';
import { type RowResult, resultOf, unansweredResult } from './row-result.js';
import { describeError, type OpenedRun, openRun } from './run-files.js';
import { type RequestAnswer, RunRequests } from './run-requests.js';
import { type RunWiring, runWiring, senderOptions } from './run-wiring.js';
import {
  type BulkSummary,
  countCode,
  countRow,
  INVALID_EXAMPLES,
  kindCode,
  rowsWritten,
  runSummary,
  takeSenderCounts,
} from './summary.js';
import type { Pending } from './window.js';

/** Requests on the wire get this long after Ctrl-C; with the rest of the shutdown, under 10 s. */
export const GRACE_MS = 8000;

/**
 * The one run entry of every client: opens the files (a BulkError, before anything is sent, when
 * one cannot be used), then runs. The wiring around it (defaults, the namespace, the transport and
 * its abandon signal, the ledger) is run-wiring.ts's.
 */
export async function runBulk(options: BulkOptions): Promise<BulkSummary> {
  const run = await BulkRun.open(options);
  return run.run();
}

class BulkRun {
  readonly summary: BulkSummary;
  private readonly sender: Sender;
  private readonly paceMemory: PaceMemory | undefined;
  /** Other runs on this machine against this service and key (pace-neighbours.ts). */
  private readonly neighbours: PaceNeighbours | undefined;
  private readonly output: OutputFile;
  // Rows in memory between reading and writing; past them, rows wait on disk (see row-queue.ts).
  private readonly queue: RowQueue;
  private readonly abandon: AbortController;

  private readonly requests: RunRequests;
  /** The shared answer store's claims, when the run has one (store-claims.ts). */
  private readonly shared: StoreClaims | undefined;
  private readonly known: KnownResults;
  /** The rows waiting for each request's answer: counted in the breakdown when it arrives. */
  private readonly waitingRows = new Map<string, number>();
  // Requests waiting for an answer before reading pauses: bounds their memory (a few hundred bytes
  // each), yet reads far enough ahead that rows after a file's distinct requests are not held up.
  private readonly maxPending: number;
  private readonly seen = new Set<string>();
  // What came back, counted as rows are read (see breakdown-counter.ts).
  private readonly breakdown: BreakdownCounter;

  private stopping = false;
  // The reading loop's one wait (for the output's disk, or for requests to leave the queue).
  private wake: (() => void) | undefined;
  private failure: unknown;
  private journalBroken = false;
  private bytesRead = 0;
  private graceTimer: NodeJS.Timeout | undefined;

  /** Opens the input and the files (run-files.ts); nothing is sent before run(). */
  static async open(options: BulkOptions): Promise<BulkRun> {
    const wiring = runWiring(options);
    const startedAt = wiring.now();
    return new BulkRun(options, wiring, await openRun(options, wiring), startedAt);
  }

  private constructor(
    private readonly options: BulkOptions,
    private readonly wiring: RunWiring,
    private readonly opened: OpenedRun,
    private readonly startedAt: number,
  ) {
    const { op } = options;
    const { columns, namespace, settings, recorder } = wiring;
    const { input, store } = opened;
    this.abandon = wiring.abandon;
    // The last run's pace against this service and key, when the client keeps one (pace-memory.ts).
    this.paceMemory = options.pacePath === undefined ? undefined : new PaceMemory(options.pacePath);
    this.sender = new Sender(
      senderOptions(options, wiring, {
        startFrom: this.paceMemory?.recall(namespace, settings.apiKey),
        onPaid: (count) => {
          recorder?.add(count);
          options.onPaid?.(count);
        },
        mayNotSend: () =>
          store.failure
            ? `the answer cache could not be written (${describeError(store.failure)})`
            : undefined,
      }),
    );
    // Only a pace found from the answers is shared: a fixed number, like the remembered pace,
    // neither reads nor writes anything here.
    const memory = this.sender.pace.isFixed ? undefined : this.paceMemory;
    this.neighbours =
      memory &&
      new PaceNeighbours(
        join(dirname(memory.path), PACE_RUNS_FOLDER),
        memory.group(namespace, settings.apiKey),
        wiring.now,
        (rate, now) => this.sender.pace.neighbourEnded(rate, now),
      );
    this.summary = runSummary(options, input, store);
    this.output = new OutputFile(options.outPath, opened.format, options.scrub ?? ((text) => text), {
      allExtras: options.allExtras !== false,
      onError: (error) => {
        // The output's disk can fill too: stop (every answer so far is in the journal) rather than crash.
        this.sender.halt(
          `the output ${options.outPath}.partial could not be written (${describeError(error)})`,
        );
        this.stopReading();
      },
    });
    this.queue = new RowQueue(options.windowRows ?? 4096, `${options.outPath}.spill`, this.output, {
      row: (result) => countRow(this.summary, result),
      code: kindCode,
      line: (code) => countCode(this.summary, code),
    });
    this.maxPending = Math.max(8192, this.sender.maxInFlight * 256);
    this.shared = options.sharedStore && new StoreClaims(options.sharedStore, op.id, this.sender);
    this.requests = new RunRequests(
      this.sender,
      store,
      this.shared,
      (key, slot, sent) => this.answer(key, slot, sent),
      this.fail,
    );
    this.known = new KnownResults(op, columns, store, options);
    this.breakdown = new BreakdownCounter(op);
  }

  /** The whole run: read and send, wait for what is on the wire, write the rest, finish. */
  async run(): Promise<BulkSummary> {
    const { signal } = this.options;
    if (signal?.aborted) this.onSignal();
    else signal?.addEventListener('abort', this.onSignal, { once: true });
    this.output.writeHeader();
    const progress = startProgress(this.options, this.opened.input.sizeBytes, () => ({
      rows: this.summary.rows,
      written: rowsWritten(this.summary),
      bytes: this.bytesRead,
      transactions: this.sender.spent,
      throttled: this.sender.throttled,
      pace: this.sender.reading(),
    }));
    this.neighbours?.start();
    try {
      await this.read().catch(this.fail);
      // What was sent is waited for even when interrupted: its answers are paid for, so journal them.
      // (On Ctrl-C only for graceMs: then the sender abandons them and they settle at once.)
      await this.requests.settle();
      // Nothing more to send: the runs beside this one may take up its rate now, not after the writing.
      this.endNeighbours();
      if (this.failure) throw this.failure;
      await this.writeRest();
      this.summary.completed =
        !signal?.aborted &&
        !this.journalBroken &&
        this.output.error === undefined &&
        this.summary.inputError === undefined;
      if (this.summary.completed && !this.queue.isEmpty) throw new Error('rows were left unwritten (a bug)');
    } finally {
      await this.finish(progress);
    }
    return this.summary;
  }

  // The reading loop. A file that breaks off mid-way (a stray quote at row 4,001, say) stops the
  // sending at once; the requests on the wire are waited for and journaled, and the summary says
  // what was spent and where the file broke.
  private async read(): Promise<void> {
    const { input, plan } = this.opened;
    read: for (;;) {
      if (this.stopping || this.failure) break;
      let batch: Awaited<ReturnType<RowSource['nextBatch']>>;
      try {
        batch = await input.nextBatch();
      } catch (error) {
        if (!(error instanceof BulkError)) throw error;
        this.summary.inputError = error.message;
        this.sender.halt(error.message, 'input');
        this.stopReading();
        break;
      }
      if (!batch) break;
      this.bytesRead = batch.bytes;
      const { records, originals } = batch;
      for (let i = 0; i < records.length; i++) {
        if (this.stopping || this.failure) break read;
        const fields = records[i] as string[];
        this.summary.rows++;
        const result = this.resultFor(plan(fields), batch.firstRow + i);
        try {
          // A row with an original (a JSON Lines line, a workbook's typed cells) is rendered now,
          // while its original is at hand; a CSV row's fields are its text, rendered when written.
          this.queue.add(originals ? this.output.renderFields(fields, originals[i]) : fields, result);
        } catch (error) {
          // The spill's disk is full: stop as when the output's is.
          this.output.fail(error as Error);
          break read;
        }
        if (this.requests.pending.size >= this.maxPending) {
          this.write();
          await this.waitFor(undefined);
        }
      }
      this.write();
      if (this.output.needsDrain) await this.waitFor(this.output.drained());
      // Between batches, answers that arrived meanwhile are taken (and the next requests sent):
      // a batch ready in the parser would otherwise follow the last one without a turn of the event
      // loop, and answers would wait for whole chunks of the file to be read.
      else if (this.requests.onTheirWay) await setImmediate();
    }
  }

  /** One row: its result now (invalid, or known), or the pending request it waits for. */
  private resultFor(planned: PlannedRow, row: number): RowResult | Pending<RowResult> {
    if (planned.kind !== 'request') return this.invalidRow(planned, row);
    const { key } = planned;
    const first = !this.seen.has(key);
    if (first) {
      this.seen.add(key);
      this.summary.distinct++;
    }
    const { pending } = this.requests;
    const known = this.known.answerFor(key, pending, this.countAskedAgain);
    if (known) {
      if (first) this.summary.fromCache++;
      this.breakdown.add(known);
      return known;
    }
    this.waitingRows.set(key, (this.waitingRows.get(key) ?? 0) + 1);
    return pending.get(key) ?? this.requests.ask(key, planned.input);
  }

  private invalidRow(planned: Exclude<PlannedRow, { kind: 'request' }>, row: number): RowResult {
    if (planned.kind === 'blank') this.summary.blank++;
    // Blank rows explain themselves; the examples show the rows that need mending.
    else if (this.summary.invalidExamples.length < INVALID_EXAMPLES) {
      this.summary.invalidExamples.push({ row, message: planned.message });
    }
    return this.known.invalid(planned);
  }

  private readonly countAskedAgain = (): void => {
    this.summary.askedAgain++;
  };

  /** A request's answer (or the reason it has none): its rows can be written and counted. */
  private answer(key: string, slot: Pending<RowResult>, sent: RequestAnswer): void {
    if (sent.sent && sent.paid && !sent.kept) {
      this.journalBroken = true;
      this.stopReading();
      return;
    }
    if ('fromStore' in sent) this.summary.fromStore++;
    const result = sent.sent
      ? resultOf(this.options.op, sent.outcome, this.wiring.columns)
      : unansweredResult(sent.reason, this.wiring.columns, sent.mayHaveBeenPaid === true);
    slot.result = result;
    this.requests.pending.delete(key);
    this.known.remember(key, result);
    this.breakdown.add(result, this.waitingRows.get(key));
    this.waitingRows.delete(key);
    this.write();
    if (this.requests.pending.size < this.maxPending) this.wake?.();
  }

  /** Writes every row whose turn has come. */
  private write(): void {
    try {
      this.queue.flush();
    } catch (error) {
      // Reading the spill back failed (its disk is full, say): stop as when the output's is.
      this.output.fail(error as Error);
    }
  }

  /** The rows still on disk go out as fast as the output's disk takes them. */
  private async writeRest(): Promise<void> {
    for (;;) {
      this.write();
      if (this.stopping || this.queue.isEmpty || !this.output.needsDrain) break;
      await this.waitFor(this.output.drained());
    }
  }

  private async waitFor(until: Promise<unknown> | undefined): Promise<void> {
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      void until?.then(() => resolve());
    });
    this.wake = undefined;
  }

  /** Ends every wait of the reading loop: the run is ending. */
  private stopReading(): void {
    this.stopping = true;
    this.wake?.();
  }

  // Whatever ends the run early (a bug, a file that cannot be written), nothing more is sent: what
  // waits to be sent would be paid for and then lost with the journal closed.
  private readonly fail = (error: unknown): void => {
    this.failure ??= error;
    this.sender.halt(`the run failed (${describeError(error as Error)})`);
    this.shared?.stop();
    this.stopReading();
  };

  private readonly onSignal = (): void => {
    this.sender.cancel();
    // Claims waiting for another instance's purchase end now: nothing of theirs is on the wire.
    this.shared?.stop();
    this.stopReading();
    this.graceTimer = setTimeout(() => this.abandon.abort(), this.options.graceMs ?? GRACE_MS);
  };

  /**
   * Keeps the pace this run found for the next run against the same service (core's
   * remembered-pace.ts says what, pace-memory.ts where): only when the controller found it (a fixed
   * number finds nothing) and something was sent (a run answered from the cache learnt nothing).
   */
  private rememberPace(): void {
    const { paceMemory: memory, sender } = this;
    if (!memory || sender.pace.isFixed || sender.attempts === 0) return;
    const { namespace } = this.wiring;
    const { apiKey } = this.wiring.settings;
    const previous = memory.recall(namespace, apiKey);
    const found = paceToRemember(sender.pace.snapshot(), previous);
    if (found !== undefined && found !== previous) memory.remember(namespace, apiKey, found);
  }

  private endNeighbours(): void {
    this.neighbours?.end(this.sender.pace.ratePerSecond);
  }

  /** Closes everything, puts the output in place if the run completed, and fills in the summary. */
  private async finish(progress: { stop(): void }): Promise<void> {
    const { input, store, outputLock } = this.opened;
    const { summary, output } = this;
    clearTimeout(this.graceTimer);
    this.options.signal?.removeEventListener('abort', this.onSignal);
    input.close();
    this.queue.close();
    await output.close();
    if (output.error) summary.completed = false;
    takeSenderCounts(summary, this.sender);
    summary.storeRefused = this.shared?.refused === true;
    // The store's budget refused: nothing more was sent (the sender itself did not stop).
    if (summary.storeRefused) summary.stopped ??= 'budget';
    summary.storeError = this.shared?.failure;
    this.endNeighbours();
    this.rememberPace();
    summary.outputError = output.error ? describeError(output.error) : undefined;
    // Of a complete run only: an incomplete one writes no output for it to describe.
    summary.breakdown = summary.completed ? this.breakdown.breakdown(summary) : undefined;
    try {
      summary.extraColumns = await output.finish(
        summary.completed,
        columnNamer(this.options.op, outputHeader(this.options.op, input.header, this.wiring.columns)),
      );
    } finally {
      summary.unsaved = store.saveUnsaved();
      store.close();
      outputLock.release();
      this.wiring.recorder?.close();
      summary.elapsedMs = this.wiring.now() - this.startedAt;
      progress.stop();
    }
  }
}
