// The counts behind GET /__sandbox/stats, apart from billing (allowance.ts) and from the answers
// themselves: a benchmark or a test reads them to see what its client did to the service (how
// often it was throttled, how fast answers came, how deep the queue got), and they must count
// every answer to a request the same way whichever check produced it. Admin answers are never
// recorded here.
import type { SandboxResponse } from './exchange.js';

export interface Stats {
  readonly transactions: number;
  readonly requests: number;
  /** Answers to requests (not to the admin paths) by status code. */
  readonly byStatus: Readonly<Record<string, number>>;
  /** 429 answers, from any cause (the rate, the window, the allowance, the reserved input, a misbehaviour). */
  readonly throttled: number;
  /** 503 answers: requests an overloaded service turned away (`overload` at '503'). */
  readonly overloaded: number;
  /**
   * Answers other than refusals (429 and 503) per second, from the first request's arrival to the
   * latest answer's end (arrival + delayMs); 0 with fewer than two such answers or no time between.
   */
  readonly answersPerSecond: number;
  /** The most requests in service at once (at most `capacity`); only requests that reach the service count. */
  readonly peakInService: number;
  /** The most requests waiting for a slot at once; 0 without a capacity. */
  readonly peakWaiting: number;
}

export interface AnswerCounts {
  /** Counts an answer to a request that arrived at `at`. */
  record(at: number, response: SandboxResponse): void;
  byStatus(): Record<string, number>;
  throttled(): number;
  overloaded(): number;
  answersPerSecond(): number;
  reset(): void;
}

export function createAnswerCounts(): AnswerCounts {
  let byStatus: Record<string, number> = {};
  let throttled = 0;
  let overloaded = 0;
  // Answers other than refusals: a refusal at once would make a client that draws many look fast.
  let served = 0;
  let firstArrival = Number.NaN;
  let lastEnd = Number.NEGATIVE_INFINITY;
  return {
    record(at, response) {
      byStatus[response.status] = (byStatus[response.status] ?? 0) + 1;
      if (response.status === 429) throttled++;
      else if (response.status === 503) overloaded++;
      else served++;
      if (Number.isNaN(firstArrival)) firstArrival = at;
      lastEnd = Math.max(lastEnd, at + response.delayMs);
    },
    byStatus: () => ({ ...byStatus }),
    throttled: () => throttled,
    overloaded: () => overloaded,
    answersPerSecond() {
      const seconds = (lastEnd - firstArrival) / 1000;
      if (served < 2 || !(seconds > 0)) return 0;
      return Math.round((served / seconds) * 1000) / 1000;
    },
    reset() {
      byStatus = {};
      throttled = 0;
      overloaded = 0;
      served = 0;
      firstArrival = Number.NaN;
      lastEnd = Number.NEGATIVE_INFINITY;
    },
  };
}
