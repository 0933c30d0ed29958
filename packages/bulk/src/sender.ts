// Sends the distinct requests of a bulk run: a fixed number at a time, at most --rate per second,
// all of them paused while the service says 429 (for as long as its Retry-After asks, up to a cap),
// retried per core's policy, and stopped for good - the rest marked "not sent" - when going on would
// be waste: the budget is spent, the key is refused, the allowance is gone (or the service asks for
// a wait longer than the cap), the service is down, or the answers can no longer be journaled.
//
// Stopping on Ctrl-C: cancel() stops sending and wakes every wait at once (a Retry-After pause, a
// retry backoff); requests already on the wire go on until abandon(), after which their rows say
// "may have been paid": the service may have billed an answer that never arrived.

import { setMaxListeners } from 'node:events';
import {
  buildRequest,
  type CallError,
  type CleanInput,
  DEFAULT_MAX_RETRY_AFTER_MS,
  type HttpRequest,
  type HttpResponse,
  isPaid,
  type Operation,
  type Outcome,
  parseRetryAfter,
  type RetryPolicy,
  type Settings,
  sendWithRetry,
  type Transport,
} from '@enrich/core';
import pLimit from 'p-limit';
import { AbortSet } from './abort-set.js';

export type StopReason = 'budget' | 'auth' | 'allowance' | 'service' | 'storage' | 'interrupted';

export type SendResult =
  | {
      readonly sent: true;
      readonly outcome: Outcome;
      readonly billable: boolean;
      /** A billable answer: whether keep() made it durable. */
      readonly kept: boolean;
    }
  | { readonly sent: false; readonly reason: string; readonly mayHaveBeenPaid?: boolean };

/** Default cap on a Retry-After wait; a longer one stops the run. */
export const MAX_RETRY_AFTER_MS = DEFAULT_MAX_RETRY_AFTER_MS;

const ABANDONED = 'abandoned when the run was interrupted: the service may have been paid for it';

export interface SenderOptions {
  readonly op: Operation;
  readonly settings: Settings;
  readonly transport: Transport;
  readonly policy: RetryPolicy;
  readonly concurrency: number;
  /** Requests (attempts) per second, or undefined for no limit. */
  readonly ratePerSecond?: number | undefined;
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
}

/** Where one request stands: how many attempts left, and whether one was abandoned on the wire. */
interface WireState {
  abandoned: boolean;
  wireAttempts: number;
}

/** An answer on its way into the journal: the slot is free, durability not yet known. */
interface Keeping {
  readonly sent: true;
  readonly outcome: Outcome;
  readonly billable: boolean;
  readonly keeping: Promise<boolean>;
}

class NotSent extends Error {}
class Abandoned extends Error {}

export class Sender {
  /** Billable answers received: the transactions this run spent. */
  spent = 0;
  /** Requests given to the service (each possibly tried several times). */
  started = 0;
  /** HTTP attempts, retries included. */
  attempts = 0;
  /** 429 answers received. */
  throttled = 0;
  /** Requests abandoned in flight (Ctrl-C): possibly paid, answer never received. */
  abandoned = 0;
  stopReason: StopReason | undefined;
  /** When the service said to come back, if it asked for a wait longer than the cap (epoch ms). */
  resumeAt: number | undefined;
  private stopMessage = '';
  private readonly wakeUp = new AbortController();
  private inFlight = 0;
  private pausedUntil = 0;
  private nextSlot = 0;
  private lastAnswerAt = Number.NEGATIVE_INFINITY;
  private failuresInARow = 0;
  private readonly limit: ReturnType<typeof pLimit>;

  private readonly abandon: AbortSet;

  constructor(private readonly options: SenderOptions) {
    this.limit = pLimit(options.concurrency);
    this.abandon = new AbortSet(options.abandonSignal);
    // Every waiting request listens for cancel(): as many as --concurrency, not a leak.
    setMaxListeners(0, this.wakeUp.signal);
  }

  // The transport as one request sees it: waits its turn (rate, 429 pause), and can be abandoned.
  private gate(state: WireState): Transport {
    const { options } = this;
    return async (request: HttpRequest) => {
      await this.waitTurn();
      if (this.stopReason === 'interrupted') throw new NotSent('interrupted');
      this.attempts++;
      if (state.wireAttempts++ === 0) this.started++;
      let response: HttpResponse;
      try {
        response = await abandonable(options.transport(request), this.abandon);
      } catch (error) {
        if (error instanceof Abandoned || options.abandonSignal?.aborted) state.abandoned = true;
        throw error;
      }
      if (response.status === 429) {
        this.throttled++;
        this.pauseFor(parseRetryAfter(response.headers['retry-after'], options.now()));
      }
      return response;
    };
  }

  // All requests wait as long as the service asks; a wait longer than the cap stops the run.
  private pauseFor(retryAfterMs: number | undefined): void {
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
    this.pausedUntil = Math.max(this.pausedUntil, now() + pause);
  }

  /**
   * Sends one request. `keep` journals a billable answer: it is called before the request's slot is
   * freed, and writes the line at once (so a journal that cannot be written stops the run before
   * another request can start); waiting for the line to be durable (fdatasync) does not hold the
   * slot. (It did: a connection idle for the length of a sync cost about a third of the throughput.)
   */
  async send(input: CleanInput, keep?: (outcome: Outcome) => Promise<boolean>): Promise<SendResult> {
    const done = await this.limit(() => this.attempt(input, keep));
    if (!('keeping' in done)) return done;
    const kept = await done.keeping;
    if (done.billable && !kept) {
      const veto = this.options.mayNotSend?.();
      this.halt(veto ?? 'the answer could not be kept');
    }
    return { sent: true, outcome: done.outcome, billable: done.billable, kept };
  }

  /** Stops sending (Ctrl-C): queued requests come back "not sent", retries and waits end at once. */
  cancel(): void {
    this.stop('interrupted', 'not sent: the run was interrupted');
    this.wakeUp.abort();
  }

  /** Stops sending because answers can no longer be kept (the journal cannot be written). */
  halt(message: string): void {
    this.stop('storage', `not sent: ${message}`);
  }

  private async attempt(
    input: CleanInput,
    keep: ((outcome: Outcome) => Promise<boolean>) | undefined,
  ): Promise<SendResult | Keeping> {
    const { op, maxTransactions } = this.options;
    const veto = this.options.mayNotSend?.();
    if (veto !== undefined) this.halt(veto);
    if (this.stopReason) return { sent: false, reason: this.stopMessage };
    // The budget counts requests in flight too, so that it can never be overspent.
    if (maxTransactions !== undefined && this.spent + this.inFlight >= maxTransactions) {
      this.stop(
        'budget',
        `not sent: the transaction budget (--max-transactions ${maxTransactions}) is spent`,
      );
      return { sent: false, reason: this.stopMessage };
    }
    const built = buildRequest(op, input, this.options.settings);
    if (!built.ok) return { sent: true, outcome: configError(built.message), billable: false, kept: false };
    this.inFlight++;
    const startedAt = this.options.now();
    const state: WireState = { abandoned: false, wireAttempts: 0 };
    let report: Awaited<ReturnType<typeof sendWithRetry>>;
    try {
      report = await sendWithRetry(op, built.request, {
        transport: this.gate(state),
        settings: this.options.settings,
        policy: this.options.policy,
        sleep: (ms) => this.sleep(ms),
        now: this.options.now,
        random: this.options.random,
        // A wait longer than the cap stops the retries of requests already sent, too.
        isCancelled: () => this.stopReason === 'interrupted' || this.resumeAt !== undefined,
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
    const { outcome } = report;
    // Core stopped retrying because the service asked for a longer wait than the cap.
    if (report.waitTooLong) this.pauseFor(report.waitTooLong.retryAfterMs);
    const billable = isPaid(outcome);
    if (billable) this.spent++;
    this.learn(outcome, billable, startedAt);
    const keeping = billable && keep ? keep(outcome) : Promise.resolve(billable);
    return { sent: true, outcome, billable, keeping };
  }

  // What one answer says about the requests still to send.
  private learn(outcome: Outcome, billable: boolean, startedAt: number): void {
    if (billable) {
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
        if (this.lastAnswerAt < startedAt) {
          this.stop('allowance', 'not sent: the transaction allowance is used up (429); run again later');
        }
        break;
      case 'server':
      case 'network':
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
  }

  private async waitTurn(): Promise<void> {
    const { now, ratePerSecond } = this.options;
    while (now() < this.pausedUntil && !this.wakeUp.signal.aborted)
      await this.sleep(this.pausedUntil - now());
    if (ratePerSecond === undefined) return;
    const interval = 1000 / ratePerSecond;
    const slot = Math.max(now(), this.nextSlot);
    this.nextSlot = slot + interval;
    if (slot > now()) await this.sleep(slot - now());
  }

  /** The caller's sleep, cut short by cancel(): no wait outlasts Ctrl-C. */
  private sleep(ms: number): Promise<void> {
    const { signal } = this.wakeUp;
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      this.options.sleep(ms).then(done, done);
    });
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

function configError(message: string): Outcome {
  return { kind: 'error', error: { code: 'config', message } };
}
