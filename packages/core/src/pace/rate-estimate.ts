// The rate half of the pace: how many requests may start per second once a 429 has shown that a
// gateway limits the rate. It is kept apart from the concurrency search because it answers a
// different signal with a different model: latency says nothing about a token bucket (it rejects,
// it does not queue), so the 429 is the signal, as in the AWS SDKs' adaptive retry mode. The rate
// is cut (to 0.7 of the rate sent the first time, 0.9 after), then grows back along TCP CUBIC's
// curve: fast while well under the rate that drew the 429, flat near it, and faster again past it,
// so that a raised limit is found. Both steps are pure arithmetic on the controller's state, given
// the times, so they can be read and tuned without the bookkeeping around them.
import type { PaceState } from './pace-state.js';

/** The rate is cut to this share of the rate sent: the first 429 (found by doubling), then later ones. */
const FIRST_CUT = 0.7;
const CUT = 0.9;
/** CUBIC's constant, relative to the rate that drew the 429: it is back there about 3 s after a 0.9 cut. */
const CUBIC = 0.0037;
/** The rate grows by at most this share per second. */
const MAX_GROWTH_PER_SECOND = 0.1;
/** The floor of the rate: one request every 10 s. */
const MIN_RATE = 0.1;

/**
 * A 429 at `now` cuts the rate: `sent` requests went out over the last `seconds`, of which the
 * service let `letThrough` through.
 */
export function cutRate(s: PaceState, sent: number, letThrough: number, seconds: number, now: number): void {
  const cut = s.rate === undefined ? FIRST_CUT : CUT;
  const sending = Math.min(s.rate ?? Number.POSITIVE_INFINITY, sent / seconds);
  s.rateMax = Math.max(MIN_RATE, Math.min(sending, letThrough / seconds));
  s.rate = Math.max(MIN_RATE, s.rateMax * cut);
  s.climbSeconds = Math.cbrt((1 - cut) / CUBIC);
  s.cutAt = now;
  s.nextStartAt = Math.max(s.nextStartAt, now);
}

/**
 * The rate an answer at `now` lets the run grow to from `rate` (the state's, once set), `seconds`
 * (at most 1) after the rate last grew, never above `ceiling` (what is being sent, with room).
 * CUBIC: W(t) = W_max (1 + C (t - K)^3), K the time it takes to climb back to W_max. Never more
 * than a tenth faster per second: a bucket's burst hides how far past its rate a client has gone,
 * and CUBIC, left alone long enough, doubles in seconds (time between Apps Script executions does
 * not count).
 */
export function grownRate(s: PaceState, rate: number, now: number, ceiling: number, seconds: number): number {
  const t = (now - s.cutAt) / 1000;
  const target = s.rateMax * (1 + CUBIC * (t - s.climbSeconds) ** 3);
  const steady = rate * (1 + MAX_GROWTH_PER_SECOND * seconds);
  return Math.max(MIN_RATE, Math.min(target, ceiling, steady));
}
