// Sends the distinct requests of a bulk run: a fixed number at a time, at most --rate per second,
// all of them paused while the service says 429 (for as long as its Retry-After asks), retried per
// core's policy, and stopped for good - the rest marked "not sent" - when going on would be waste:
// the budget is spent, the key is refused, the allowance is gone, or the service is down.
import {
  buildRequest,
  type CallError,
  type CleanInput,
  type HttpRequest,
  isBillable,
  type Operation,
  type Outcome,
  parseRetryAfter,
  type RetryPolicy,
  type Settings,
  sendWithRetry,
  type Transport,
} from '@enrich/core';
import pLimit from 'p-limit';

export type StopReason = 'budget' | 'auth' | 'allowance' | 'service' | 'interrupted';

export type SendResult =
  | { readonly sent: true; readonly outcome: Outcome; readonly billable: boolean }
  | { readonly sent: false; readonly reason: string };

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
}

export class Sender {
  /** Billable answers received: the transactions this run spent. */
  spent = 0;
  /** Requests given to the service (each possibly tried several times). */
  started = 0;
  /** HTTP attempts, retries included. */
  attempts = 0;
  /** 429 answers received. */
  throttled = 0;
  stopReason: StopReason | undefined;
  private stopMessage = '';
  private inFlight = 0;
  private pausedUntil = 0;
  private nextSlot = 0;
  private lastAnswerAt = Number.NEGATIVE_INFINITY;
  private failuresInARow = 0;
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly gated: Transport;
  private idleWaiters: (() => void)[] = [];
  private outstanding = 0;

  constructor(private readonly options: SenderOptions) {
    this.limit = pLimit(options.concurrency);
    this.gated = async (request: HttpRequest) => {
      await this.waitTurn();
      this.attempts++;
      const response = await options.transport(request);
      if (response.status === 429) {
        this.throttled++;
        const pause = parseRetryAfter(response.headers['retry-after']) ?? options.defaultPauseMs ?? 1000;
        this.pausedUntil = Math.max(this.pausedUntil, options.now() + pause);
      }
      return response;
    };
  }

  send(input: CleanInput): Promise<SendResult> {
    this.outstanding++;
    return this.limit(() => this.attempt(input)).finally(() => {
      this.outstanding--;
      if (this.outstanding === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    });
  }

  /** Stops sending (Ctrl-C): queued requests come back "not sent", retries end. */
  cancel(): void {
    this.stop('interrupted', 'not sent: the run was interrupted');
  }

  /** Resolves once every request handed to send() has settled. */
  idle(): Promise<void> {
    if (this.outstanding === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async attempt(input: CleanInput): Promise<SendResult> {
    const { op, maxTransactions } = this.options;
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
    if (!built.ok) return { sent: true, outcome: configError(built.message), billable: false };
    this.inFlight++;
    this.started++;
    const startedAt = this.options.now();
    try {
      const report = await sendWithRetry(op, built.request, {
        transport: this.gated,
        settings: this.options.settings,
        policy: this.options.policy,
        sleep: this.options.sleep,
        now: this.options.now,
        random: this.options.random,
        isCancelled: () => this.stopReason === 'interrupted',
        onRetry: ({ delayMs, outcome }) => {
          if (outcome.kind === 'error') this.options.onRetry?.({ delayMs, error: outcome.error });
        },
      });
      const { outcome } = report;
      const billable = isBillable(outcome);
      if (billable) this.spent++;
      this.learn(outcome, billable, startedAt);
      return { sent: true, outcome, billable };
    } finally {
      this.inFlight--;
    }
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
    const { now, sleep, ratePerSecond } = this.options;
    while (now() < this.pausedUntil) await sleep(this.pausedUntil - now());
    if (ratePerSecond === undefined) return;
    const interval = 1000 / ratePerSecond;
    const slot = Math.max(now(), this.nextSlot);
    this.nextSlot = slot + interval;
    if (slot > now()) await sleep(slot - now());
  }
}

function configError(message: string): Outcome {
  return { kind: 'error', error: { code: 'config', message } };
}
