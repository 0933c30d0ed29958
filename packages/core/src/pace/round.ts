// One round trip of the concurrency search, judged on its cohort: the requests sent from the round's
// start until its first answer came back (one round trip of sends). The cohort is judged once more
// than half of it is back and every request still out has been out longer than the median so far:
// the first answers to come back are the fast ones, so a round judged on its first answers would
// take the service for faster than it is, and its long tail for a queue.

export interface Round {
  startedAt: number;
  /** The limit when the round opened: slow start doubles it once per round, no more. */
  limitAtStart: number;
  /** Slow start holds the limit this round: the last one looked like a queue, not yet confirmed. */
  holding: boolean;
  /** When the cohort stopped growing (its first answer); undefined while it still grows. */
  closedAt: number | undefined;
  /** Requests in the cohort. */
  cohort: number;
  /** Latencies of the cohort's answers so far. */
  latencies: number[];
  failed: number;
  answers: number;
  /** Whether the limit was reached while the round was open: growing is pointless otherwise. */
  saturated: boolean;
  /** The most in flight while the round was open. */
  peakInFlight: number;
}

export const newRound = (at: number, limit: number): Round => ({
  startedAt: at,
  limitAtStart: limit,
  holding: false,
  closedAt: undefined,
  cohort: 0,
  latencies: [],
  failed: 0,
  answers: 0,
  saturated: false,
  peakInFlight: 0,
});

/** Whether an attempt sent at `sentAt` is one of the round's cohort. */
export function inCohort(round: Round, sentAt: number): boolean {
  return sentAt >= round.startedAt && (round.closedAt === undefined || sentAt < round.closedAt);
}

/** The median latency of `size` requests, of which `latencies` came back (the rest are slower). */
export function cohortMedian(latencies: readonly number[], size: number): number | undefined {
  if (latencies.length === 0) return undefined;
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(size / 2))];
}

/**
 * Whether the cohort's median is known at `now`: more than half of it is back, and every request
 * still out has been out longer than that median (so none can come in under it). A cohort all
 * back, or with a failure, is judged at once.
 */
export function isJudged(round: Round, now: number): boolean {
  if (round.closedAt === undefined || round.answers <= round.cohort / 2) return false;
  // All of it back (a fetchAll round comes back whole), or a failure: judged now.
  if (round.failed > 0 || round.answers >= round.cohort) return true;
  const median = cohortMedian(round.latencies, round.cohort);
  return median !== undefined && now - round.closedAt >= median;
}
