// Driving the pace controller by hand on a simulated clock, one event at a time (for the tests of
// each rule: pace-limit, pace-rate and pace-reading tests), where pace-sim.ts runs whole services.
import type { AttemptSignal, Pace, PaceState } from '../src/index.js';

/**
 * A state as a run or an earlier execution leaves it: a limit of 10 found (out of slow start), the
 * service's latency with no queue 100 ms, no rate yet. Each test changes what its rule needs.
 */
export const knownState = (over: Partial<PaceState> = {}): PaceState => ({
  limit: 10,
  slowStart: false,
  rate: undefined,
  rateMax: 0,
  climbSeconds: 0,
  cutAt: 0,
  nextStartAt: 0,
  latency: undefined,
  baseline: 100,
  baselineSince: 0,
  change: 'remembered',
  changedAt: 0,
  ...over,
});

/** `count` requests sent at `at`, all back `latencyMs` later with `signal`: returns when they are back. */
export function roundTrip(
  pace: Pace,
  at: number,
  count: number,
  latencyMs: number,
  signal: AttemptSignal = 'answered',
): number {
  for (let i = 0; i < count; i++) pace.sent(at);
  for (let i = 0; i < count; i++) pace.ended(at, at + latencyMs, signal);
  return at + latencyMs;
}

/** Round trips one after the other, each as many as the limit allows: returns when the last is back. */
export function fullRounds(pace: Pace, from: number, rounds: number, latencyMs: number): number {
  let at = from;
  for (let i = 0; i < rounds; i++) at = roundTrip(pace, at, pace.concurrency, latencyMs);
  return at;
}

/** One request every `everyMs` from `from` (inclusive) to `to` (exclusive), each answered `latencyMs` later. */
export function steady(pace: Pace, from: number, to: number, everyMs = 10, latencyMs = 5): void {
  for (let at = from; at < to; at += everyMs) {
    pace.sent(at);
    pace.ended(at, at + latencyMs, 'answered');
  }
}
