// What a gateway says of its limit in its answers' headers, when it says anything: how many requests
// are left and when the count starts again. Gateways that count per fixed window ("600 a minute")
// let a client through at full speed until the window's count is spent, then refuse everything to
// its end. A client that reads the headers stops when the count is spent and goes on when it starts
// again: just under the limit, never a 429 from it. (Spreading what is left over the time left was
// tried: in a simulated 2 s window it reached 0.81-0.92 of the best fixed setting, where spending at
// full pace and waiting for the reset reached 0.98-1.03, both without a 429. Over a short run the
// spreader finishes at the end of its last window, the others as it starts.)
//
// Read, in order of preference:
// - the IETF draft's `RateLimit` field, in its structured form (`"default";r=50;t=30`: r remaining,
//   t seconds to the reset) or its earlier form (`limit=100, remaining=50, reset=30`);
// - `X-RateLimit-Remaining` with `X-RateLimit-Reset` (seconds to the reset, or an epoch in seconds
//   when larger than a year of seconds, as GitHub and others send it).
// Anything else, or a value that does not parse, is no hint: the controller goes by the 429s.

export interface RateLimitHint {
  /** Requests the service will still let through before the reset. */
  readonly remaining: number;
  /**
   * When the count starts again, at the latest and at the earliest (epoch ms). Gateways say it in
   * whole seconds, rounded up as Retry-After is ("1" means anything up to a second), counted from
   * some moment between the request leaving and its answer arriving.
   */
  readonly resetAt: number;
  readonly earliestResetAt: number;
  /** When the request was sent (epoch ms). */
  readonly sentAt: number;
}

/** Requests in flight whose send times are kept, at most (far above any concurrency used). */
const MAX_TRACKED = 4096;
/** A reset further than this is an epoch (seconds), not a delay. */
const EPOCH_SECONDS = 365 * 24 * 3600;
/** A reset this far ahead is not believed (a misread header must not stall a run for days). */
const MAX_RESET_MS = 3600 * 1000;

/** The hint in a response's headers (names in lower case), or undefined. */
export function readRateLimit(
  headers: Readonly<Record<string, string | undefined>>,
  nowMs: number,
  sentAtMs: number = nowMs,
): RateLimitHint | undefined {
  const draft = headers.ratelimit;
  if (draft !== undefined) {
    const remaining = param(draft, ['r', 'remaining']);
    const reset = param(draft, ['t', 'reset']);
    const hint = hintOf(remaining, reset, nowMs, sentAtMs);
    if (hint) return hint;
  }
  const remaining = number(headers['x-ratelimit-remaining']);
  return hintOf(remaining, number(headers['x-ratelimit-reset']), nowMs, sentAtMs);
}

function hintOf(
  remaining: number | undefined,
  reset: number | undefined,
  nowMs: number,
  sentAtMs: number,
): RateLimitHint | undefined {
  if (remaining === undefined || reset === undefined || remaining < 0 || reset < 0) return undefined;
  // Whole seconds leave a second of doubt; a fraction is taken as exact.
  const doubt = Number.isInteger(reset) ? 1000 : 0;
  const epoch = reset > EPOCH_SECONDS;
  const resetAt = epoch ? reset * 1000 : nowMs + reset * 1000;
  if (resetAt - nowMs > MAX_RESET_MS) return undefined;
  // A delay was counted no earlier than the request left.
  const earliest = (epoch ? resetAt : Math.min(sentAtMs, nowMs) + reset * 1000) - doubt;
  return {
    remaining: Math.floor(remaining),
    resetAt: Math.max(nowMs, resetAt),
    earliestResetAt: Math.min(earliest, Math.max(nowMs, resetAt)),
    sentAt: sentAtMs,
  };
}

/** `name=value` (or `;name=value`) of the first name found in a header field, as a number. */
function param(field: string, names: readonly string[]): number | undefined {
  for (const name of names) {
    const match = new RegExp(`(?:^|[;,\\s])${name}=([0-9.]+)`, 'i').exec(field);
    if (match) return number(match[1]);
  }
  return undefined;
}

function number(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*[0-9]+(\.[0-9]+)?\s*$/.test(text)) return undefined;
  return Number(text);
}

/**
 * What is left of the service's count, as the headers said, less what was sent since: once it is
 * spent, when sending may start again.
 *
 * Each answer bounds the window's reset from both sides (RateLimitHint); the answers of one window
 * narrow it to where the count of seconds changed. Taking only the last answer's "at most 1 s" waited
 * up to a second past the reset: a quarter of a 2 s window (0.65 of the ceiling in the bench). And
 * answers arrive out of order: a late answer of the last window must not be read as this one's.
 */
export class HeaderBudget {
  private remaining = 0;
  private earliest = Number.NEGATIVE_INFINITY;
  private latest = Number.NEGATIVE_INFINITY;
  /** The lowest count an answer of this window said, as the service counted it. */
  private said = Number.POSITIVE_INFINITY;
  /** When each request still in flight was sent, oldest first. */
  private readonly inFlight: number[] = [];

  /** A hint read from an answer (before its request is told `ended`). */
  update(hint: RateLimitHint): void {
    // The count was taken when the hint's request reached the service: those sent after it, still
    // on their way, are not in it; those sent before it are.
    const remaining = hint.remaining - this.sentAfter(hint.sentAt);
    if (hint.earliestResetAt >= this.latest) {
      // A later window than the one known.
      this.earliest = hint.earliestResetAt;
      this.latest = hint.resetAt;
      this.remaining = remaining;
      this.said = hint.remaining;
    } else if (hint.resetAt > this.earliest) {
      // The same window: its reset narrowed, its count the lowest said.
      this.earliest = Math.max(this.earliest, hint.earliestResetAt);
      this.latest = Math.min(this.latest, hint.resetAt);
      this.remaining = Math.min(this.remaining, remaining);
      this.said = Math.min(this.said, hint.remaining);
    }
    // Else its reset ends before this window's can: a late answer of an earlier window.
  }

  /** `count` requests left at `now`: as many fewer until the next hint. */
  sent(now: number, count: number): void {
    this.remaining -= count;
    for (let i = 0; i < count; i++) this.inFlight.push(now);
    // Should a caller not tell of every end, the list stays bounded.
    if (this.inFlight.length > MAX_TRACKED) this.inFlight.splice(0, this.inFlight.length - MAX_TRACKED);
  }

  /**
   * The request sent at `sentAt` is back. It left at or after the time the pace was told of it (its
   * turn: bulk reads the clock again once the turn is given, a millisecond or two later at times),
   * so the last one told at or before `sentAt` is taken for it. Matched by the exact time, a
   * request a millisecond late was never found: it counted as still on its way, the count left was
   * taken for one less, and the last requests of a window waited for the next one.
   */
  ended(sentAt: number): void {
    let at = this.inFlight.length - 1;
    while (at >= 0 && (this.inFlight[at] as number) > sentAt) at--;
    if (at >= 0) this.inFlight.splice(at, 1);
    // Every request back: what is left is exactly what the service last said. Until then it is an
    // estimate (the answers' counts less what is still on its way), and requests that reach the
    // service in another order than they left can make it one or two short: left so, the last
    // requests of a window would wait for the next one (at the end of a short run, a window more).
    if (this.inFlight.length === 0 && Number.isFinite(this.said)) this.remaining = this.said;
  }

  private sentAfter(sentAt: number): number {
    let count = 0;
    for (let i = this.inFlight.length - 1; i >= 0 && (this.inFlight[i] as number) > sentAt; i--) count++;
    return count;
  }

  /** When sending may go on, when the count is spent before its reset; else undefined. */
  blockedUntil(now: number): number | undefined {
    return now < this.latest && this.remaining <= 0 ? this.latest : undefined;
  }
}
