// Sends the distinct requests of a bulk run at the pace core's controller (Pace) finds: as many in
// flight and as many per second as the service allows, found from its answers (--concurrency auto),
// or a number the user fixed; never more than --max-rate per second. Each attempt waits its turn in
// one queue (a place in flight, the rate's spacing, the end of a pause). A 429 waits as long as its
// Retry-After asks; every request waits with it when the number is fixed or when the service answers
// nothing but 429 (an allowance, not a pace). Whether a Retry-After is too long to wait for is core's
// decideRetry's to say, and only its: told through sendWithRetry's onWaitTooLong, the Sender stops
// the run there, before another request can leave. Requests are retried per core's policy,
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
//
// The Sender ties the parts, each in a file of its own: `budget.ts` (the --max-transactions budget:
// a place reserved before a request waits its turn, kept if it was paid or may have been, given back
// otherwise), `turns.ts` (the queue of turns that admits attempts by the pace and the pauses),
// `stops.ts` (the stop messages, and the rules by which an answer stops the run), `abandonable.ts`
// (giving up on requests in flight), `pace-summary.ts`, `sender-options.ts` (what a Sender is given
// and gives back).

import { setMaxListeners } from 'node:events';
import {
  type AttemptSignal,
  abortableSleep,
  buildRequest,
  type CleanInput,
  DEFAULT_MAX_CONCURRENCY,
  type HttpRequest,
  type HttpResponse,
  isPaid,
  type Outcome,
  Pace,
  type PaceReading,
  parseRetryAfter,
  readRateLimit,
  rememberedState,
  type StopReason,
  sendWithRetry,
  type Transport,
  type WaitTooLong,
} from '@enrich/core';
import pLimit from 'p-limit';
import { Abandoned, abandonable } from './abandonable.js';
import { AbortSet } from './abort-set.js';
import { Budget } from './budget.js';
import type { SenderOptions, SendResult } from './sender-options.js';
import {
  ABANDONED,
  ALLOWANCE_GONE,
  budgetSpent,
  INTERRUPTED,
  Lessons,
  waitTooLong,
  withAskAgain,
} from './stops.js';
import { Turns } from './turns.js';

export type { StopReason } from '@enrich/core';
export { type PaceSummary, paceSummary } from './pace-summary.js';
export type { SenderOptions, SendResult } from './sender-options.js';

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
  /** The limit this run started at from the last run's pace (core's remembered-pace.ts), if it did. */
  readonly startedFrom: number | undefined;
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
  /** The --max-transactions budget, if there is one: whether a request may be sent within it. */
  private readonly budget: Budget | undefined;
  /** The queue of turns each attempt waits in: a place in flight, the rate, a 429 pause. */
  private readonly turns: Turns;
  /** What the answers say about going on: when to stop. */
  private readonly lessons: Lessons;
  private firstSentAt: number | undefined;
  private lastEndedAt = 0;
  /** Attempts answered with anything but 429 (for the pace reached). */
  private answered = 0;
  private readonly limit: ReturnType<typeof pLimit>;

  private readonly abandon: AbortSet;

  constructor(private readonly options: SenderOptions) {
    const fixed = options.concurrency === 'auto' ? undefined : options.concurrency;
    const now = options.now();
    // A number the user fixed is kept as it is: the last run's pace does not apply to it.
    const remembered = fixed === undefined ? options.startFrom : undefined;
    this.pace = new Pace(
      { fixedConcurrency: fixed, maxConcurrency: options.maxConcurrency, maxRate: options.maxRate },
      now,
      remembered && rememberedState(remembered, now),
    );
    this.startedFrom = remembered && this.pace.concurrency;
    this.turns = new Turns(this.pace, options);
    this.lessons = new Lessons(options, (reason, message) => this.stop(reason, message));
    this.budget = options.maxTransactions === undefined ? undefined : new Budget(options.maxTransactions);
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
      // The send time is read once the turn is given (turns.ts says why).
      await this.turns.wait(state.wireAttempts > 0);
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
      // A gateway that says what is left of its count: spread it until the reset (core's rate-headers.ts).
      const hint = readRateLimit(response.headers, options.now(), sentAt);
      if (hint) this.pace.rateLimitHint(hint);
      if (response.status === 429) {
        this.throttled++;
        const retryAfterMs = parseRetryAfter(response.headers['retry-after'], options.now());
        // Without a Retry-After, every request waits a pause out; with one, the pace probes for the
        // count's reset (core's window-reset.ts).
        const everyone = this.attemptEnded(sentAt, 'throttled', retryAfterMs);
        this.pauseFor(retryAfterMs, everyone);
        // Refused everything, pause after pause, as many times as a request may be tried: the
        // allowance is used up, not busy.
        if (this.pace.refusedInARow >= options.policy.maxAttempts) this.stop('allowance', ALLOWANCE_GONE);
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
    this.turns.nudge();
    return everyone;
  }

  // The request that got the 429 waits in core's retry (which honours Retry-After, or stops the run
  // through waitedTooLong when it is longer than the policy allows); every request waits with it
  // when `everyone`.
  private pauseFor(retryAfterMs: number | undefined, everyone: boolean): void {
    const { now, defaultPauseMs } = this.options;
    if (everyone) this.turns.pauseUntil(now() + (retryAfterMs ?? defaultPauseMs ?? 1000));
  }

  // Core's decideRetry found the service's Retry-After longer than the policy allows: the run stops
  // and says when to come back (the latest time any request was given).
  private waitedTooLong(wait: WaitTooLong): void {
    this.resumeAt = Math.max(this.resumeAt ?? 0, wait.resumeAt);
    this.stop('allowance', waitTooLong(wait.retryAfterMs, wait.maxRetryAfterMs, this.resumeAt));
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
    this.stop('interrupted', INTERRUPTED);
    this.wakeUp.abort();
  }

  /**
   * Stops sending because the run cannot go on: answers can no longer be kept (the journal or the
   * shared store cannot be written: 'storage'), or the input breaks off mid-file ('input'). What is
   * on the wire still answers and is journaled; nothing waiting is sent.
   */
  halt(message: string, reason: 'storage' | 'input' = 'storage'): void {
    this.stop(reason, `not sent: ${message}`);
  }

  private async attempt(
    input: CleanInput,
    keep: ((outcome: Outcome) => Promise<boolean>) | undefined,
  ): Promise<SendResult | Keeping> {
    const { op } = this.options;
    const veto = this.options.mayNotSend?.();
    if (veto !== undefined) this.halt(veto);
    if (this.stopReason) return { sent: false, reason: this.stopMessage };
    const built = buildRequest(op, input, this.options.settings);
    if (!built.ok) return { sent: true, outcome: configError(built.message), paid: false, kept: false };
    // A place in the budget, taken before the request waits for its turn on the wire, so that the
    // requests on their way never outnumber what is left of it (budget.ts: why it may wait here).
    if (this.budget && !(await this.budget.reserve())) {
      if (this.budget.isSpent) this.stop('budget', budgetSpent(this.budget.maxTransactions));
      return { sent: false, reason: this.stopMessage };
    }
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
        onWaitTooLong: (wait) => this.waitedTooLong(wait),
        onRetry: ({ delayMs, outcome }) => {
          if (outcome.kind === 'error') this.options.onRetry?.({ delayMs, error: outcome.error });
        },
      });
    } catch (error) {
      // Not an answer but a failure of ours: if an attempt left, the service may have billed it.
      this.budget?.release(state.wireAttempts > 0);
      throw error;
    }
    if (state.abandoned) {
      // Its attempt was on the wire when the run gave up on it.
      this.abandoned++;
      this.budget?.release(true);
      return { sent: false, reason: ABANDONED, mayHaveBeenPaid: true };
    }
    // Interrupted before it ever left: nothing was sent, nothing paid.
    if (state.wireAttempts === 0) {
      this.budget?.release(false);
      return { sent: false, reason: this.stopMessage };
    }
    const outcome = withAskAgain(report.outcome);
    const unanswered = outcome !== report.outcome;
    if (unanswered) this.unanswered++;
    const paid = isPaid(outcome);
    if (paid) {
      this.spent++;
      this.options.onPaid?.(1);
    }
    // Paid, or sent whole and never answered (the service may have billed it): its place is kept.
    // Any other end (a 5xx or a network failure after the retries, a 400...) gives it back.
    this.budget?.release(paid || unanswered);
    this.lessons.learn(outcome, paid, state.firstSentAt);
    const keeping = paid && keep ? keep(outcome) : Promise.resolve(paid);
    return { sent: true, outcome, paid, keeping };
  }

  private stop(reason: StopReason, message: string): void {
    if (this.stopReason) return;
    this.stopReason = reason;
    this.stopMessage = message;
    this.turns.stop();
    this.budget?.close();
  }

  /** The caller's sleep, or core's timer, cut short by cancel(): no wait outlasts Ctrl-C. */
  private sleep(ms: number): Promise<void> {
    return abortableSleep(ms, this.wakeUp.signal, this.options.sleep);
  }
}

function configError(message: string): Outcome {
  return { kind: 'error', error: { code: 'config', message } };
}
