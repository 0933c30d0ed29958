// What a gateway says of its limit in its answers' headers, when it says anything: how many requests
// are left and when the count starts again. Gateways that count per fixed window ("600 a minute")
// let a client through at full speed until the window's count is spent, then refuse everything to
// its end; a client that reads the headers spreads what is left over the time left instead, and
// holds just under the limit rather than hitting it every window.
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
  /** When the count starts again (epoch ms). */
  readonly resetAt: number;
}

/** A reset further than this is an epoch (seconds), not a delay. */
const EPOCH_SECONDS = 365 * 24 * 3600;
/** A reset this far ahead is not believed (a misread header must not stall a run for days). */
const MAX_RESET_MS = 3600 * 1000;

/** The hint in a response's headers (names in lower case), or undefined. */
export function readRateLimit(
  headers: Readonly<Record<string, string | undefined>>,
  nowMs: number,
): RateLimitHint | undefined {
  const draft = headers.ratelimit;
  if (draft !== undefined) {
    const remaining = param(draft, ['r', 'remaining']);
    const reset = param(draft, ['t', 'reset']);
    const hint = hintOf(remaining, reset, nowMs);
    if (hint) return hint;
  }
  return hintOf(number(headers['x-ratelimit-remaining']), number(headers['x-ratelimit-reset']), nowMs);
}

function hintOf(
  remaining: number | undefined,
  reset: number | undefined,
  nowMs: number,
): RateLimitHint | undefined {
  if (remaining === undefined || reset === undefined || remaining < 0 || reset < 0) return undefined;
  const resetAt = reset > EPOCH_SECONDS ? reset * 1000 : nowMs + reset * 1000;
  if (resetAt - nowMs > MAX_RESET_MS) return undefined;
  return { remaining: Math.floor(remaining), resetAt: Math.max(nowMs, resetAt) };
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
 * What is left of the service's count, as the headers last said, less what was sent since: the
 * rate that spends it evenly until the reset, or when sending may start again once it is spent.
 */
export class HeaderBudget {
  private remaining = 0;
  private resetAt = Number.NEGATIVE_INFINITY;

  update(hint: RateLimitHint): void {
    this.remaining = hint.remaining;
    this.resetAt = hint.resetAt;
  }

  /** A request left: one fewer until the next hint. */
  spent(count: number): void {
    this.remaining -= count;
  }

  /** Requests per second that spend what is left by the reset; undefined when nothing is known. */
  rate(now: number): number | undefined {
    if (now >= this.resetAt || this.remaining <= 0) return undefined;
    return this.remaining / Math.max(0.05, (this.resetAt - now) / 1000);
  }

  /** When sending may go on, when the count is spent before its reset; else undefined. */
  blockedUntil(now: number): number | undefined {
    return now < this.resetAt && this.remaining <= 0 ? this.resetAt : undefined;
  }
}
