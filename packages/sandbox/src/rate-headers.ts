// What the fixed window's gateway says of its limit when `rateHeaders` is on, in the forms clients
// read: the de-facto X-RateLimit-Limit / -Remaining / -Reset, and the IETF draft's fields
// (draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy: "window";q=600;w=60` for the quota and
// its window, `RateLimit: "window";r=42;t=17` for what is left and the seconds to the reset). Both
// resets are delta-seconds rounded up, never early: a client that waits them out finds a new
// window. Kept apart from the counting (fixed-window.ts) so the wire format is decided once.
import type { WindowCount } from './fixed-window.js';

/** The draft's name for the sandbox's one policy. */
const POLICY = '"window"';

/** Whole seconds from `now` to `at`, rounded up: what Retry-After and the resets say. */
export function secondsUntil(at: number, now: number): number {
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** The headers of an answer counted by the window (its 429 included), at `now`. */
export function rateLimitHeaders(count: WindowCount, windowMs: number, now: number): Record<string, string> {
  const reset = secondsUntil(count.resetAt, now);
  return {
    'x-ratelimit-limit': String(count.limit),
    'x-ratelimit-remaining': String(count.remaining),
    'x-ratelimit-reset': String(reset),
    'ratelimit-policy': `${POLICY};q=${count.limit};w=${Math.ceil(windowMs / 1000)}`,
    ratelimit: `${POLICY};r=${count.remaining};t=${reset}`,
  };
}
