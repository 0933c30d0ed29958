// The pace a run found, kept for the next run against the same service, and the state a run starts
// from with it. Without it every run climbs from INITIAL_CONCURRENCY: against a slow service (800 ms,
// no limit) that is four round trips of doubling, a third of a 10 s run spent under the ceiling.
//
// What is kept is what the controller needs to start where the last run ended and still back off:
// - the limit, and whether it was still climbing (slow start: the service allowed at least that
//   many, and the next run doubles from there) or found (the run left slow start on a queue, a 429
//   or a failure: it grows by one per round trip from there);
// - the baseline latency. Without it the first round of a run that starts too high would be its
//   baseline: a service whose capacity dropped from 64 to 16 answers the first round of 64 at about
//   2.5 times its latency, the controller would take that for the latency with no queue, and never
//   see the queue. With it, that round shows a queue, and the controller cuts within two round trips,
//   as it does mid-run. A baseline from a faster day is lowered by the first faster round; one from a
//   slower day shows as a queue that cutting does not shorten, and the controller measures it anew
//   (baseline.ts);
// - the rate, once a 429 showed one: the next run is spaced by it from its first request instead
//   of finding the bucket again with a burst of 429s; a 429 still cuts it, and it still grows.
// 429s and 5xx act on a remembered start as on any other.
import type { PaceState } from './pace-state.js';

export interface RememberedPace {
  /** The limit in flight at the end of the run. */
  readonly concurrency: number;
  /** Requests per second, when a 429 showed a rate limit. */
  readonly ratePerSecond?: number | undefined;
  /** The service's latency with no queue of ours (ms). */
  readonly baselineMs: number;
  /** Still in slow start: no limit of the service was met, it allows at least `concurrency`. */
  readonly climbing: boolean;
}

/**
 * What a run that ended with `state` leaves for the next one, given what was kept before
 * (`previous`): undefined when it learnt nothing (no round judged, so no baseline). A run still
 * climbing below the pace kept before (a short run, which stopped before reaching it) met no limit:
 * the pace kept before still holds, and is kept as it was.
 */
export function paceToRemember(
  state: PaceState,
  previous: RememberedPace | undefined,
): RememberedPace | undefined {
  if (state.baseline === undefined) return undefined;
  const concurrency = Math.max(1, Math.floor(state.limit));
  if (state.slowStart && previous !== undefined && concurrency <= previous.concurrency) return previous;
  return {
    concurrency,
    ...(state.rate === undefined ? {} : { ratePerSecond: state.rate }),
    baselineMs: state.baseline,
    climbing: state.slowStart,
  };
}

/** The state a run starts from with a remembered pace: `new Pace(options, now, rememberedState(...))`. */
export function rememberedState(remembered: RememberedPace, now: number): PaceState {
  const rate = remembered.ratePerSecond;
  return {
    limit: Math.max(1, remembered.concurrency),
    slowStart: remembered.climbing,
    rate,
    // The rate it starts at is the one that drew no 429 (CUBIC's W_max with nothing to climb back):
    // it grows from there slowly at first, and a 429 cuts it as mid-run.
    rateMax: rate ?? 0,
    climbSeconds: 0,
    cutAt: now,
    nextStartAt: now,
    // No latency yet: the first round's own median is judged against the baseline, not a mix of it
    // with the remembered figure (which would hide half of a queue for a round or two).
    latency: undefined,
    baseline: remembered.baselineMs,
    baselineSince: now,
    change: 'remembered',
    changedAt: now,
  };
}
