// Sends the distinct requests of a bulk run at the pace core's controller (Pace) finds: as many in
// flight and as many per second as the service allows, found from its answers (--concurrency auto),
// or a number the user fixed; never more than --max-rate per second. Each attempt waits its turn in
// one queue (a place in flight, the rate's spacing, the end of a pause). A 429 waits as long as its
// Retry-After asks, up to a cap; every request waits with it when the number is fixed or when the
// service answers nothing but 429 (an allowance, not a pace). Requests are retried per core's policy,
// and stopped for good - the rest marked "not sent" - when going on would be waste: the budget is
// spent, the key is refused, the allowance is gone (or the service asks for a wait longer than the
// cap), the service is down, or the answers can no longer be journaled.
//
// Stopping on Ctrl-C: cancel() stops sending and wakes every wait at once (a Retry-After pause, a
// retry backoff); requests already on the wire go on until abandon(), after which their rows say
// "may have been paid": the service may have billed an answer that never arrived.
//
// A request sent whole that got no answer (the deadline passed, or the connection was lost while
// waiting: core's `unanswered`) is not retried either: its row says it may have been paid and that a
// rerun asks again, and the summary counts it (`unanswered`), as it does the abandoned ones.

import { setMaxListeners } from 'node:events';
import {
  type AttemptSignal,
  abortableSleep,
  buildRequest,
  type CallError,
  type CleanInput,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_RETRY_AFTER_MS,
  type HttpRequest,
  type HttpResponse,
  isPaid,
  type Operation,
  type Outcome,
  Pace,
  type PaceChange,
  type PaceReading,
  parseRetryAfter,
  type RetryPolicy,
  type Settings,
  type StopReason,
  sendWithRetry,
  type Transport,
} from '@enrich/core';
import pLimit from 'p-limit';
import { AbortSet } from './abort-set.js';

export type { StopReason } from '@enrich/core';

export type SendResult =
  | {
      readonly sent: true;
      readonly outcome: Outcome;
      readonly paid: boolean;
      /** A paid answer: whether keep() made it durable. */
      readonly kept: boolean;
    }
  | { readonly sent: false; readonly reason: string; readonly mayHaveBeenPaid?: boolean };

/** Default cap on a Retry-After wait; a longer one stops the run. */
export const MAX_RETRY_AFTER_MS = DEFAULT_MAX_RETRY_AFTER_MS;

const ABANDONED = 'abandoned when the run was interrupted: the service may have been paid for it';

/**
 * What the row of a request sent whole but never answered (core's `unanswered`: the deadline
 * passed, or the connection was lost while waiting) adds to core's "may have been paid" message:
 * how to ask again. It is not journaled (no answer arrived), so a rerun asks again, as for a
 * request abandoned at Ctrl-C.
 */
export const ASK_AGAIN_UNANSWERED =
  'A rerun asks for it again (one more transaction if the service billed this one); a longer timeout may help if the service is slow.';

export interface SenderOptions {
  readonly op: Operation;
  readonly settings: Settings;
  readonly transport: Transport;
  readonly policy: RetryPolicy;
  /** Requests in flight: a fixed number, or 'auto' for the pace the service allows. */
  readonly concurrency: number | 'auto';
  /** With 'auto': the most in flight (core's default, 64, if undefined). */
  readonly maxConcurrency?: number | undefined;
  /** Requests (attempts) per second never exceeded, or undefined for no such cap. */
  readonly maxRate?: number | undefined;
  readonly maxTransactions?: number | undefined;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
  readonly random?: () => number;
  /** A 429 without Retry-After pauses the run this long. */
  readonly defaultPauseMs?: number;
  /** Consecutive requests that end in a server or network error before the run stops sending. */
  readonly failureLimit?: number;
  readonly onRetry?: (info: { delayMs: number; error: CallError }) => void;
  /** Aborted when requests in flight are to be abandoned (also given to the transport, to close them). */
  readonly abandonSignal?: AbortSignal;
  /**
   * Asked before each request: a reason not to send it (the journal can no longer keep answers),
   * or undefined. Asked here, not only after the failing answer's row, so that no request starts in
   * between.
   */
  readonly mayNotSend?: () => string | undefined;
  /** Told of each paid answer as it is counted in `spent` (the spend ledger's recorder). */
  readonly onPaid?: ((count: number) => void) | undefined;
}

/** Where one request stands: how many attempts left, and whether one was abandoned on the wire. */
interface WireState {
  abandoned: boolean;
  wireAttempts: number;
  /** When its first attempt left (not when it began waiting its turn). */
  firstSentAt: number;
}

/** An answer on its way into the journal: the slot is free, durability not yet known. */
interface Keeping {
  readonly sent: true;
  readonly outcome: Outcome;
  readonly paid: boolean;
  readonly keeping: Promise<boolean>;
}

class NotSent extends Error {}
class Abandoned extends Error {}

export class Sender {
  /** Paid answers received: the transactions this run spent. */
  spent = 0;
  /** Requests given to the service (each possibly tried several times). */
  started = 0;
  /** HTTP attempts, retries included. */
  attempts = 0;
  /** 429 answers received. */
  throttled = 0;
  /** The pace: how many in flight and how many per second, found from the answers or fixed. */
  readonly pace: Pace;
  /** Requests abandoned in flight (Ctrl-C): possibly paid, answer never received. */
  abandoned = 0;
  /**
   * Requests sent whole that got no answer (the deadline passed, or the connection was lost while
   * waiting): the service may have billed them. Never retried; counted against the budget.
   */
  unanswered = 0;
  stopReason: StopReason | undefined;
  /** When the service said to come back, if it asked for a wait longer than the cap (epoch ms). */
  resumeAt: number | undefined;
  private stopMessage = '';
  private readonly wakeUp = new AbortController();
  private inFlight = 0;
  private pausedUntil = 0;
  /** Attempts waiting for their turn to go on the wire, in order, and the loop that lets them go. */
  private readonly turns: (() => void)[] = [];
  private turnsRunning = false;
  /** Wakes the turn loop early: an attempt ended (a place may be free), or the run stopped. */
  private nudgeTurns: (() => void) | undefined;
  private firstSentAt: number | undefined;
  private lastEndedAt = 0;
  /** Attempts answered with anything but 429 (for the pace reached). */
  private answered = 0;
  private lastAnswerAt = Number.NEGATIVE_INFINITY;
  private failuresInARow = 0;
  private readonly limit: ReturnType<typeof pLimit>;

  private readonly abandon: AbortSet;

  constructor(private readonly options: SenderOptions) {
    const fixed = options.concurrency === 'auto' ? undefined : options.concurrency;
    this.pace = new Pace(
      { fixedConcurrency: fixed, maxConcurrency: options.maxConcurrency, maxRate: options.maxRate },
      options.now(),
    );
    // A request holds its place here through its retries' waits; the pace counts those on the wire.
    this.limit = pLimit(fixed ?? this.maxInFlight);
    this.abandon = new AbortSet(options.abandonSignal);
    // Every waiting request listens for cancel(): as many as are in flight, not a leak.
    setMaxListeners(0, this.wakeUp.signal);
  }

  /** The most requests this run may have in flight: what reading ahead is sized by. */
  get maxInFlight(): number {
    const { concurrency, maxConcurrency } = this.options;
    return concurrency === 'auto' ? (maxConcurrency ?? DEFAULT_MAX_CONCURRENCY) : concurrency;
  }

  /** Where the pace stands now: for progress lines. */
  reading(): PaceReading {
    return this.pace.reading(this.options.now());
  }

  /** Answers (other than 429) per second from the first request to the last answer. */
  get answersPerSecond(): number {
    if (this.firstSentAt === undefined || this.lastEndedAt <= this.firstSentAt) return 0;
    return (this.answered * 1000) / (this.lastEndedAt - this.firstSentAt);
  }

  // The transport as one request sees it: waits its turn (a place in flight, the rate, a 429 pause),
  // tells the pace how the attempt ended, and can be abandoned.
  private gate(state: WireState): Transport {
    const { options } = this;
    return async (request: HttpRequest) => {
      await this.waitTurn(state.wireAttempts > 0);
      const sentAt = options.now();
      // The run stopped sending while this request waited its turn: it never leaves. (A retry of
      // one already sent goes, unless interrupted: core asked isCancelled before it.)
      if (this.stopReason === 'interrupted' || (this.stopReason && state.wireAttempts === 0)) {
        this.attemptEnded(sentAt, 'failed');
        throw new NotSent(this.stopReason);
      }
      this.attempts++;
      this.firstSentAt ??= sentAt;
      if (state.wireAttempts++ === 0) {
        this.started++;
        state.firstSentAt = sentAt;
      }
      let response: HttpResponse;
      try {
        response = await abandonable(options.transport(request), this.abandon);
      } catch (error) {
        this.attemptEnded(sentAt, 'failed');
        if (error instanceof Abandoned || options.abandonSignal?.aborted) state.abandoned = true;
        throw error;
      }
      if (response.status === 429) {
        this.throttled++;
        const retryAfterMs = parseRetryAfter(response.headers['retry-after'], options.now());
        const everyone = this.attemptEnded(sentAt, 'throttled', retryAfterMs ?? options.defaultPauseMs);
        this.pauseFor(retryAfterMs, everyone);
        // Refused everything, pause after pause, as many times as a request may be tried: the
        // allowance is used up, not busy.
        if (this.pace.refusedInARow >= options.policy.maxAttempts) {
          this.stop('allowance', 'not sent: the transaction allowance is used up (429); run again later');
        }
      } else {
        this.answered++;
        this.attemptEnded(sentAt, response.status >= 500 ? 'failed' : 'answered');
      }
      return response;
    };
  }

  /** Tells the pace; returns whether every request should wait for a 429's Retry-After. */
  private attemptEnded(sentAt: number, signal: AttemptSignal, retryAfterMs?: number): boolean {
    const now = this.options.now();
    this.lastEndedAt = now;
    const everyone = this.pace.ended(sentAt, now, signal, retryAfterMs);
    this.nudgeTurns?.();
    return everyone;
  }

  // A wait longer than the cap stops the run; otherwise the request that got the 429 waits (core's
  // retry honours Retry-After), and every request waits with it when `everyone`.
  private pauseFor(retryAfterMs: number | undefined, everyone = true): void {
    const { now, defaultPauseMs } = this.options;
    const maxRetryAfterMs = this.options.policy.maxRetryAfterMs ?? MAX_RETRY_AFTER_MS;
    const pause = retryAfterMs ?? defaultPauseMs ?? 1000;
    if (pause > maxRetryAfterMs) {
      this.resumeAt = Math.max(this.resumeAt ?? 0, now() + pause);
      this.stop(
        'allowance',
        `not sent: the service asked to wait ${waitText(pause)} (Retry-After), longer than the ${waitText(maxRetryAfterMs)} this run waits; run again after ${new Date(this.resumeAt).toISOString()}`,
      );
      return;
    }
    if (everyone) this.pausedUntil = Math.max(this.pausedUntil, now() + pause);
  }

  /**
   * Sends one request. `keep` journals a paid answer: it is called before the request's slot is
   * freed, and writes the line at once (so a journal that cannot be written stops the run before
   * another request can start); waiting for the line to be durable (fdatasync) does not hold the
   * slot. (It did: a connection idle for the length of a sync cost about a third of the throughput.)
   */
  async send(input: CleanInput, keep?: (outcome: Outcome) => Promise<boolean>): Promise<SendResult> {
    const done = await this.limit(() => this.attempt(input, keep));
    if (!('keeping' in done)) return done;
    const kept = await done.keeping;
    if (done.paid && !kept) {
      const veto = this.options.mayNotSend?.();
      this.halt(veto ?? 'the answer could not be kept');
    }
    return { sent: true, outcome: done.outcome, paid: done.paid, kept };
  }

  /** Stops sending (Ctrl-C): queued requests come back "not sent", retries and waits end at once. */
  cancel(): void {
    this.stop('interrupted', 'not sent: the run was interrupted');
    this.wakeUp.abort();
  }

  /**
   * Stops sending because the run cannot go on: answers can no longer be kept (the journal cannot
   * be written: 'storage'), or the input breaks off mid-file ('input'). What is on the wire still
   * answers and is journaled; nothing waiting is sent.
   */
  halt(message: string, reason: 'storage' | 'input' = 'storage'): void {
    this.stop(reason, `not sent: ${message}`);
  }

  private async attempt(
    input: CleanInput,
    keep: ((outcome: Outcome) => Promise<boolean>) | undefined,
  ): Promise<SendResult | Keeping> {
    const { op, maxTransactions } = this.options;
    const veto = this.options.mayNotSend?.();
    if (veto !== undefined) this.halt(veto);
    if (this.stopReason) return { sent: false, reason: this.stopMessage };
    // The budget counts requests in flight too, so that it can never be overspent, and those that
    // may have been paid (sent whole, never answered).
    if (maxTransactions !== undefined && this.spent + this.unanswered + this.inFlight >= maxTransactions) {
      this.stop(
        'budget',
        `not sent: the transaction budget (--max-transactions ${maxTransactions}) is spent`,
      );
      return { sent: false, reason: this.stopMessage };
    }
    const built = buildRequest(op, input, this.options.settings);
    if (!built.ok) return { sent: true, outcome: configError(built.message), paid: false, kept: false };
    this.inFlight++;
    const state: WireState = { abandoned: false, wireAttempts: 0, firstSentAt: 0 };
    let report: Awaited<ReturnType<typeof sendWithRetry>>;
    try {
      report = await sendWithRetry(op, built.request, {
        transport: this.gate(state),
        settings: this.options.settings,
        policy: this.options.policy,
        sleep: (ms) => this.sleep(ms),
        now: this.options.now,
        random: this.options.random,
        // Once the run stops sending (interrupted, a wait longer than the cap, the allowance gone,
        // the key refused...), no retry starts either.
        isCancelled: () => this.stopReason !== undefined,
        onRetry: ({ delayMs, outcome }) => {
          if (outcome.kind === 'error') this.options.onRetry?.({ delayMs, error: outcome.error });
        },
      });
    } finally {
      this.inFlight--;
    }
    if (state.abandoned) {
      // Its attempt was on the wire when the run gave up on it.
      this.abandoned++;
      return { sent: false, reason: ABANDONED, mayHaveBeenPaid: true };
    }
    // Interrupted before it ever left: nothing was sent, nothing paid.
    if (state.wireAttempts === 0) return { sent: false, reason: this.stopMessage };
    const outcome = withAskAgain(report.outcome);
    if (outcome !== report.outcome) this.unanswered++;
    // Core stopped retrying because the service asked for a longer wait than the cap.
    if (report.waitTooLong) this.pauseFor(report.waitTooLong.retryAfterMs);
    const paid = isPaid(outcome);
    if (paid) {
      this.spent++;
      this.options.onPaid?.(1);
    }
    this.learn(outcome, paid, state.firstSentAt);
    const keeping = paid && keep ? keep(outcome) : Promise.resolve(paid);
    return { sent: true, outcome, paid, keeping };
  }

  // What one answer says about the requests still to send.
  private learn(outcome: Outcome, paid: boolean, firstSentAt: number): void {
    if (paid) {
      this.lastAnswerAt = this.options.now();
      this.failuresInARow = 0;
      return;
    }
    if (outcome.kind !== 'error') return;
    switch (outcome.error.code) {
      case 'unauthorized':
        this.stop('auth', 'not sent: the API key was refused (401)');
        break;
      case 'redirect':
        // Every request would be redirected the same way; a wrong base URL, most likely.
        this.stop('service', `not sent: ${outcome.error.message}`);
        break;
      case 'allowance':
        // A 429 that outlasted every retry while no other request got an answer: the allowance
        // is gone, not busy. (If others were answered meanwhile, only this row is marked.)
        if (this.lastAnswerAt < firstSentAt) {
          this.stop('allowance', 'not sent: the transaction allowance is used up (429); run again later');
        }
        break;
      case 'server':
      case 'network':
      case 'unanswered':
      case 'unexpected-status': {
        this.failuresInARow++;
        const limit = this.options.failureLimit ?? 20;
        if (this.failuresInARow >= limit) {
          this.stop('service', `not sent: the service failed ${limit} requests in a row; run again later`);
        }
        break;
      }
      default:
        break;
    }
  }

  private stop(reason: StopReason, message: string): void {
    if (this.stopReason) return;
    this.stopReason = reason;
    this.stopMessage = message;
    this.nudgeTurns?.();
  }

  // An attempt's turn: at once when nothing waits and the pace allows (the common case, and the only
  // one with a fixed number and no rate), else in order behind the others. The pace is told at the
  // moment the turn is given, so that the next one is judged with this one counted.
  // A retry goes before requests not yet sent: finishing what was started first, as TCP resends
  // before it sends anything new (and a run whose allowance is gone finds it out in a few attempts).
  private waitTurn(retry: boolean): Promise<void> {
    if (this.turns.length === 0 && this.mayGoAt(this.options.now()) === 0) {
      this.pace.sent(this.options.now());
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      if (retry) this.turns.unshift(resolve);
      else this.turns.push(resolve);
      void this.giveTurns();
    });
  }

  /** 0 when an attempt may go now; else how long until it may (Infinity: until a place is free). */
  private mayGoAt(now: number): number {
    const at = Math.max(this.pausedUntil, this.pace.readyAt(now));
    if (at > now) return at - now;
    return this.pace.hasRoom() ? 0 : Number.POSITIVE_INFINITY;
  }

  private async giveTurns(): Promise<void> {
    if (this.turnsRunning) return;
    this.turnsRunning = true;
    try {
      while (this.turns.length > 0) {
        if (this.stopReason) {
          // The run stopped sending: every waiting attempt is let go, to find it so and send nothing.
          for (const go of this.turns.splice(0)) go();
          break;
        }
        const now = this.options.now();
        const wait = this.mayGoAt(now);
        if (wait > 0) await this.turnWait(wait);
        else {
          this.pace.sent(now);
          this.turns.shift()?.();
        }
      }
    } finally {
      this.turnsRunning = false;
    }
  }

  // The turn loop's wait: `ms` (Infinity: until an attempt ends), cut short by a nudge. A timer of
  // its own, cleared when nudged, so that a long spacing never holds the process after the run.
  private turnWait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = ms === Number.POSITIVE_INFINITY ? undefined : setTimeout(done, ms);
      function done(this: void) {
        clearTimeout(timer);
        resolve();
      }
      this.nudgeTurns = () => {
        this.nudgeTurns = undefined;
        done();
      };
    });
  }

  /** The caller's sleep, cut short by cancel(): no wait outlasts Ctrl-C. */
  private sleep(ms: number): Promise<void> {
    return abortableSleep(ms, this.wakeUp.signal, this.options.sleep);
  }
}

/** The transport's answer, or a rejection as soon as the run abandons requests in flight. */
function abandonable<T>(answer: Promise<T>, abandon: AbortSet): Promise<T> {
  if (abandon.signal === undefined) return answer;
  if (abandon.aborted) return Promise.reject(new Abandoned('abandoned: the run was interrupted'));
  return new Promise<T>((resolve, reject) => {
    const forget = abandon.add(() => reject(new Abandoned('abandoned: the run was interrupted')));
    answer.then(
      (value) => {
        forget();
        resolve(value);
      },
      (error: unknown) => {
        forget();
        reject(error);
      },
    );
  });
}

function waitText(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** An `unanswered` error with how to ask again; any other outcome as it is. */
function withAskAgain(outcome: Outcome): Outcome {
  if (outcome.kind !== 'error' || outcome.error.code !== 'unanswered') return outcome;
  return {
    kind: 'error',
    error: { ...outcome.error, message: `${outcome.error.message} ${ASK_AGAIN_UNANSWERED}` },
  };
}

function configError(message: string): Outcome {
  return { kind: 'error', error: { code: 'config', message } };
}

/** The pace a run reached, for its summary. */
export interface PaceSummary {
  /** Answers (other than 429) per second, from the first request to the last answer. */
  readonly answersPerSecond: number;
  /** 'auto' when the controller found the pace, else the number the user fixed. */
  readonly mode: 'auto' | 'fixed';
  /** Where it stood at the end: the limit in flight and the rate (if paced by one). */
  readonly concurrency: number;
  readonly ratePerSecond: number | undefined;
  /** Why it last changed (core's PACE_CHANGES). */
  readonly change: PaceChange;
}

export function paceSummary(sender: Sender): PaceSummary {
  const reading = sender.reading();
  return {
    answersPerSecond: Math.round(sender.answersPerSecond * 10) / 10,
    mode: sender.pace.isFixed ? 'fixed' : 'auto',
    concurrency: reading.concurrency,
    ratePerSecond:
      reading.ratePerSecond === undefined ? undefined : Math.round(reading.ratePerSecond * 10) / 10,
    change: reading.change,
  };
}
