// The baseline of the concurrency search: the service's latency with no queue of ours in it. A run
// starts with no queue, so at first the lowest latency seen is the baseline. Then, as BBR probes its
// minimum round trip, it is measured anew every BASELINE_PERIOD_MS with the limit halved, so that
// our own queue drains: without that, a queue kept for long becomes the baseline and the limit
// creeps up past the knee. It is measured anew at once, too, when cuts for a queue halved the limit
// and the latency did not come down: that was the service getting slower, not a queue of ours.
import type { PaceState } from './pace-state.js';
import { cohortMedian, type Round } from './round.js';

const BASELINE_PERIOD_MS = 30_000;
/**
 * Answers a probe measures the baseline on: its median then strays by about a fifth of σ, and the
 * probe costs a round trip or two at half the limit every 30 s (about 1 % of a run).
 */
const PROBE_ANSWERS = 32;
/**
 * Cuts for a queue that halved the limit and left the latency above this share of where they began
 * had no effect: a queue of ours would have shrunk with the limit.
 */
const NO_EFFECT = 0.7;
/** A baseline measured anew this much above the last: the service is slower. */
const SLOWER_SERVICE = 1.5;

/** What the baseline step made of a round: go on and judge it, or it went to the measuring. */
export type BaselineStep = 'judge' | 'measuring' | 'slower-service';

export class Baseline {
  /** Answers it was measured on (0: the lowest latency seen, before the first measure). */
  answers = 0;
  /** While measuring: the limit held, and the latencies of cohorts sent under it. */
  private probe: { limit: number; latencies: number[]; afterCuts: boolean } | undefined;
  /** The latency and the limit when cutting for a queue began (until the limit is back there). */
  private cutFrom: { latency: number; limit: number } | undefined;

  /** The value and its date live in the controller's state (carried between Apps Script executions). */
  constructor(private readonly state: PaceState) {}

  /** The latency (ms), once known. */
  get value(): number | undefined {
    return this.state.baseline;
  }

  /** The limit held while measuring, if measuring. */
  get probeLimit(): number | undefined {
    return this.probe?.limit;
  }

  /**
   * A judged round, with its median and the smoothed latency: measuring goes on, or ends (maybe
   * finding the service slower), or a period is over and measuring starts; else the round is
   * judged against the baseline.
   */
  step(round: Round, latency: number, limit: number, slowStart: boolean, now: number): BaselineStep {
    const probe = this.probe;
    if (probe) {
      if (round.peakInFlight <= probe.limit) probe.latencies.push(...round.latencies);
      if (probe.latencies.length < PROBE_ANSWERS) return 'measuring';
      const before = this.state.baseline;
      const after = cohortMedian(probe.latencies, probe.latencies.length) as number;
      this.state.baseline = after;
      this.state.baselineSince = now;
      this.answers = probe.latencies.length;
      this.probe = undefined;
      // Only after cuts that did nothing: a first measure after the lowest latency seen is above it anyway.
      const slower = probe.afterCuts && before !== undefined && after > before * SLOWER_SERVICE;
      return slower ? 'slower-service' : 'measuring';
    }
    if (!slowStart && now - this.state.baselineSince >= BASELINE_PERIOD_MS) {
      this.measure(limit, false);
      return 'measuring';
    }
    if (this.answers === 0) this.state.baseline = Math.min(this.state.baseline ?? latency, latency);
    return 'judge';
  }

  /** A cut for a queue, at a round whose median was `median`: true when it started measuring instead. */
  cut(median: number, limit: number): boolean {
    this.cutFrom ??= { latency: median, limit };
    if (limit > this.cutFrom.limit / 2 || median < this.cutFrom.latency * NO_EFFECT) return false;
    this.cutFrom = undefined;
    this.measure(limit, true);
    return true;
  }

  /** The limit grows to `limit`: the cuts are over once it is back where they began. */
  grew(limit: number): void {
    if (this.cutFrom && limit >= this.cutFrom.limit) this.cutFrom = undefined;
  }

  private measure(limit: number, afterCuts: boolean): void {
    this.probe = { limit: Math.max(1, Math.floor(limit / 2)), latencies: [], afterCuts };
  }
}
