// How much a service's latency varies on its own, with no queue behind it: real latency is close to
// log-normal with a long tail, and a round's median of a few answers swings by half either way when
// the tail is heavy (σ 1). The pace must not read that swing as a queue. So the spread is measured
// (the standard deviation of the logarithm of the latency, σ, from the median absolute deviation:
// robust to the tail itself), and a latency counts as queueing only when it is further above the
// baseline than a median of that many answers strays by chance.
// The spread is measured within each round, around the round's own median, not over every answer
// of the run: slow start doubles the number in flight every round, so a queue makes each round's
// latency higher than the last, and answers taken together would count that climb as noise: the
// queue would hide itself (the CLI's run against a capacity of 6, whose first round was slowed by
// the run's start, doubled on to 64 in flight). Only the deviations below the median are taken: a
// round is judged before its slowest answers are back (round.ts), and every answer under its median
// is known by then; for a log-normal the two halves spread alike.

/** Deviations the spread is measured over (half the answers of the last rounds judged). */
const KEPT = 256;
/** A median of n answers of a log-normal strays by about 1.2533 σ / √n (its standard error). */
const MEDIAN_ERROR = 1.2533;
/** MAD x 1.4826 estimates a normal's standard deviation. */
const MAD_TO_SIGMA = 1.4826;
/**
 * A latency counts as a queue only past this many standard errors above the baseline. 3: over
 * hundreds of round trips a 2 would cut for nothing now and then, and a cut for nothing costs
 * seconds of climbing back.
 */
const Z = 3;
/** Latency within this share of the baseline is no queue, however steady the service. */
const AT_LEAST = 1.05;

export class LatencyNoise {
  /** How far below its round's median each answer was, in log: the absolute deviations. */
  private readonly deviations: number[] = [];
  private next = 0;

  /** A round judged: the latencies of its answers, and its median. */
  addRound(latencies: readonly number[], roundMedian: number): void {
    const center = Math.log(Math.max(roundMedian, 0.001));
    for (const latency of latencies) {
      if (latency >= roundMedian) continue;
      const deviation = center - Math.log(Math.max(latency, 0.001));
      if (this.deviations.length < KEPT) this.deviations.push(deviation);
      else this.deviations[this.next] = deviation;
      this.next = (this.next + 1) % KEPT;
    }
  }

  /** σ of the log latency, or 0 until a few deviations are known. */
  get sigma(): number {
    if (this.deviations.length < 8) return 0;
    return MAD_TO_SIGMA * median(this.deviations);
  }

  /**
   * The factor by which the median of `answers` answers may exceed a baseline that is the median
   * of `baselineAnswers` (0: the lowest of many such medians) by chance: Z standard errors of
   * their difference.
   */
  tolerance(answers: number, baselineAnswers: number): number {
    // The lowest of many medians strays about as far below as one median of as many answers.
    const n = Math.max(1, answers);
    const spread = 1 / n + 1 / (baselineAnswers > 0 ? baselineAnswers : n);
    return Math.max(AT_LEAST, Math.exp(Z * MEDIAN_ERROR * this.sigma * Math.sqrt(spread)));
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
