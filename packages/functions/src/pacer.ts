// The pace of one instance: every request this process sends, whatever the batch, protocol or
// operation, waits its turn in one queue ruled by core's Pace (the controller every client uses: as
// many in flight and as many per second as the service allows, found from its answers), and is
// retried by core's policy. Several instances on one key each run their own Pace: a 429 cuts each
// one's rate, so together they back off, and each climbs back as the service lets it (CUBIC), none
// holding the others out. A 429 answered while nothing else is answered (an allowance used up)
// pauses every request of the instance for the Retry-After, as the CLI does.
import {
  type AttemptSignal,
  abortableSleep,
  buildRequest,
  type CleanInput,
  DEFAULT_RETRY_POLICY,
  type HttpRequest,
  type HttpResponse,
  type Operation,
  type Outcome,
  Pace,
  type PaceReading,
  parseRetryAfter,
  type RetryPolicy,
  readRateLimit,
  type Settings,
  sendWithRetry,
  type Transport,
} from '@enrich/core';

export interface PacerOptions {
  readonly settings: Settings;
  readonly transport: Transport;
  readonly maxConcurrency: number;
  readonly maxRate?: number | undefined;
  readonly policy?: RetryPolicy;
  /** Told before each retry's wait (a line in the log: no row data in it). */
  readonly onRetry?: (info: { readonly delayMs: number; readonly outcome: Outcome }) => void;
}

export interface Sent {
  readonly outcome: Outcome;
  /** Whether any attempt left for the service (else nothing can have been paid). */
  readonly left: boolean;
  /** A Retry-After the service asked for that the policy would not wait (ms), if any. */
  readonly retryAfterMs?: number;
}

class Stopped extends Error {}

/** A 429 without Retry-After pauses this long, when it pauses everyone. */
const DEFAULT_PAUSE_MS = 1000;

export class Pacer {
  readonly pace: Pace;
  /** Attempts waiting for their turn, in order (a retry goes first). */
  private readonly waiting: (() => void)[] = [];
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly wakeUp = new AbortController();

  constructor(private readonly options: PacerOptions) {
    this.pace = new Pace({ maxConcurrency: options.maxConcurrency, maxRate: options.maxRate }, Date.now());
  }

  reading(): PaceReading {
    return this.pace.reading(Date.now());
  }

  /** Sends one request at the pace, with core's retries; resolves with its outcome (never rejects). */
  async send(op: Operation, input: CleanInput): Promise<Sent> {
    const built = buildRequest(op, input, this.options.settings);
    if (!built.ok)
      return { outcome: { kind: 'error', error: { code: 'config', message: built.message } }, left: false };
    const state = { attempts: 0 };
    const report = await sendWithRetry(op, built.request, {
      transport: this.gate(state),
      settings: this.options.settings,
      policy: this.options.policy ?? DEFAULT_RETRY_POLICY,
      sleep: (ms) => this.sleep(ms),
      now: Date.now,
      isCancelled: () => this.stopped,
      ...(this.options.onRetry ? { onRetry: this.options.onRetry } : {}),
    });
    const waited = report.waitTooLong ? { retryAfterMs: report.waitTooLong.retryAfterMs } : {};
    return { outcome: report.outcome, left: state.attempts > 0, ...waited };
  }

  /** The server stops: waiting requests end unsent, waits are cut short. */
  stop(): void {
    this.stopped = true;
    this.wakeUp.abort();
    this.pump();
  }

  // The transport as one request sees it: waits its turn, tells the pace how the attempt ended.
  private gate(state: { attempts: number }): Transport {
    return async (request: HttpRequest) => {
      await this.turn(state.attempts > 0);
      // Let go unsent (no place in flight taken) when the server stopped while it waited.
      if (this.stopped) throw new Stopped('the server is stopping; not sent');
      const sentAt = Date.now();
      state.attempts++;
      let response: HttpResponse;
      try {
        response = await this.options.transport(request);
      } catch (error) {
        this.ended(sentAt, 'failed');
        throw error;
      }
      const hint = readRateLimit(response.headers, Date.now());
      if (hint) this.pace.rateLimitHint(hint);
      if (response.status === 429) {
        const retryAfterMs = parseRetryAfter(response.headers['retry-after'], Date.now());
        const pause = retryAfterMs ?? DEFAULT_PAUSE_MS;
        if (this.ended(sentAt, 'throttled', retryAfterMs))
          this.pausedUntil = Math.max(this.pausedUntil, Date.now() + pause);
      } else {
        this.ended(sentAt, response.status >= 500 ? 'failed' : 'answered');
      }
      return response;
    };
  }

  private ended(sentAt: number, signal: AttemptSignal, retryAfterMs?: number): boolean {
    const everyone = this.pace.ended(sentAt, Date.now(), signal, retryAfterMs);
    this.pump();
    return everyone;
  }

  // An attempt's turn: at once when nothing waits and the pace allows, else in order behind the others.
  private turn(retry: boolean): Promise<void> {
    const now = Date.now();
    if (this.stopped) return Promise.resolve();
    if (this.waiting.length === 0 && this.delay(now) === 0) {
      this.pace.sent(now);
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      if (retry) this.waiting.unshift(resolve);
      else this.waiting.push(resolve);
      this.pump();
    });
  }

  /** 0 when an attempt may go now; else how long until it may (Infinity: until one ends). */
  private delay(now: number): number {
    const at = Math.max(this.pausedUntil, this.pace.readyAt(now));
    if (at > now) return at - now;
    return this.pace.hasRoom() ? 0 : Number.POSITIVE_INFINITY;
  }

  // Lets waiting attempts go while the pace allows; else wakes again when it will (a timer), or when
  // an attempt ends (ended() calls it).
  private pump(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) {
      for (const go of this.waiting.splice(0)) go();
      return;
    }
    while (this.waiting.length > 0) {
      const now = Date.now();
      const wait = this.delay(now);
      if (wait > 0) {
        if (Number.isFinite(wait)) this.timer = setTimeout(() => this.pump(), Math.max(1, Math.ceil(wait)));
        return;
      }
      this.pace.sent(now);
      this.waiting.shift()?.();
    }
  }

  /** A retry's wait, cut short when the server stops. */
  private sleep(ms: number): Promise<void> {
    return abortableSleep(ms, this.wakeUp.signal);
  }
}
