// When a count that was used up starts again. A gateway that counts per fixed window ("600 a
// minute") lets the count through, then answers 429 to everything until the window ends, with a
// Retry-After to that end in whole seconds, rounded up: "2" means more than one second and at most
// two, counted from a moment between the request leaving and its answer arriving. Waiting for all
// of it waits up to a second past the reset: in a 2 s window, half of it (0.82 of the best fixed
// setting in the bench). So the reset is bounded from both sides, every refusal narrowing it, and
// from the earliest moment it may have come one request at a time goes to see, a quarter of a
// second apart; the first one answered opens the count to everyone. A probe refused costs one 429,
// a few per window at most, where a whole window's worth of sends would have been refused.
//
// Only with a Retry-After the service gave (without one, the pause is a guess, and probing it would
// only add refusals), and only once a count was seen to start again after a pause (pace.ts's
// usedUpCount: a process beside another on one bucket is refused everything too).

/** How far apart probes go while the reset may have come. */
const PROBE_MS = 250;
/** Retry-After in whole seconds leaves this much doubt. */
const WHOLE_SECOND = 1000;

export class WindowReset {
  private earliest = Number.NEGATIVE_INFINITY;
  private latest = Number.NEGATIVE_INFINITY;
  private nextProbeAt = Number.NEGATIVE_INFINITY;
  /** Between a refusal of everything and the count starting again: requests go one at a time. */
  probing = false;

  /**
   * Everything lately was refused, the last by an answer at `now` to a request sent at `sentAt`,
   * which said to retry after `retryAfterMs`.
   */
  refused(sentAt: number, now: number, retryAfterMs: number): void {
    const earliest = Math.min(sentAt + retryAfterMs - WHOLE_SECOND, now + retryAfterMs);
    const latest = now + retryAfterMs;
    if (earliest >= this.latest) {
      // A later window than the one known.
      this.earliest = earliest;
      this.latest = latest;
    } else {
      // The same one: its reset narrowed.
      this.earliest = Math.max(this.earliest, earliest);
      this.latest = Math.min(this.latest, latest);
    }
    this.nextProbeAt = Math.max(this.nextProbeAt, this.earliest);
    this.probing = true;
  }

  /** Whether a refusal at `now` of a request sent at `sentAt` was one of the probes: it says not yet. */
  isProbe(sentAt: number): boolean {
    return this.probing && sentAt >= this.earliest && sentAt < this.latest;
  }

  /**
   * A request sent at `sentAt` was answered. Returns true when it opened the count again: it was
   * sent after the reset may have come.
   */
  answered(sentAt: number): boolean {
    if (!this.probing || sentAt < this.earliest) return false;
    this.latest = Number.NEGATIVE_INFINITY;
    this.probing = false;
    return true;
  }

  /** Whether the count may still be used up at `now`: requests then go one at a time, to see. */
  closed(now: number): boolean {
    if (now >= this.latest) this.probing = false;
    return this.probing;
  }

  /** When the next request may go, while the count is used up. */
  readyAt(now: number): number {
    return this.closed(now) ? Math.min(this.latest, Math.max(now, this.nextProbeAt)) : now;
  }

  /** A request left at `now`: while closed, the next probe waits its turn. */
  sent(now: number): void {
    if (this.closed(now)) this.nextProbeAt = now + PROBE_MS;
  }
}
