// What the pace controller takes in and gives out, as plain data apart from the controller itself.
// Every client touches these shapes (the CLI and VS Code read a PaceReading for their progress
// lines, Apps Script stores a PaceState between executions, the bulk engine reports an
// AttemptSignal), while only the controller needs its arithmetic; keeping them here lets a reader
// see the controller's contract without reading how it decides.
import type { PaceChange } from './pace-changes.js';

export interface PaceOptions {
  /** A number of requests in flight fixed by the user: the controller changes nothing. */
  readonly fixedConcurrency?: number | undefined;
  /** The most in flight the controller may reach. */
  readonly maxConcurrency?: number | undefined;
  /** Requests per second never exceeded, whatever the service says. */
  readonly maxRate?: number | undefined;
  readonly initialConcurrency?: number | undefined;
}

/** What an attempt came to, for the pace: any answer but 429; a 429; a 5xx, network failure or timeout. */
export type AttemptSignal = 'answered' | 'throttled' | 'failed';

/** What the controller has learnt, as plain data: Apps Script carries it from one execution to the next. */
export interface PaceState {
  limit: number;
  slowStart: boolean;
  /** Starts per second, once a 429 showed a rate limit. */
  rate: number | undefined;
  /** The rate that last drew a 429 (CUBIC's W_max). */
  rateMax: number;
  /** Seconds CUBIC takes to climb back to rateMax after the last cut (its K). */
  climbSeconds: number;
  /** When the rate was last cut (ms). */
  cutAt: number;
  /** When the next request may start, spaced by the rate (ms). */
  nextStartAt: number;
  /** Round-trip latency, smoothed over a few rounds (ms). */
  latency: number | undefined;
  /** The service's latency with no queue of ours: measured with half the limit, then the lowest since (ms). */
  baseline: number | undefined;
  /** When the baseline was last measured with the limit halved (or the run started). */
  baselineSince: number;
  change: PaceChange;
  changedAt: number;
}

/** Where the pace stands, for progress lines and summaries. */
export interface PaceReading {
  /** Requests allowed in flight now, and in flight now. */
  readonly concurrency: number;
  readonly inFlight: number;
  /** Requests per second allowed now, if the run is paced by a rate. */
  readonly ratePerSecond: number | undefined;
  /** Answers (other than 429) per second over the last second or so. */
  readonly answersPerSecond: number;
  readonly change: PaceChange;
  readonly changedAt: number;
}
