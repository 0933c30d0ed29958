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
// only add refusals), and only once a count was seen spent after a pause (CountSpent, below).

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

/** Answers of requests sent after a count's first refusal, allowed for the order requests arrive in. */
const SLACK = 2;
/** Requests let through before everything was refused, for that to be taken for a count spent. */
const MIN_COUNT = 20;

/**
 * Whether what the service did between two pauses was a count spent, as a fixed window spends it:
 * requests let through, then everything sent after the first refusal refused. A process sharing a
 * bucket with another also has everything refused now and then, but between its pauses what it
 * sends is let through and refused here and there: probing its pauses, and spending the next
 * "count" at full pace, would starve it. (Probing from the first pause on took the bench's two
 * processes from about 0.8 to 0.50 of the best fixed setting; with the first pause waited out and
 * this rule, they are back within their run-to-run swing, 0.62-0.82, as before.) Not on the first pause: there is no stretch after
 * a pause to judge by.
 */
export class CountSpent {
  private from = Number.NEGATIVE_INFINITY;
  private answered = 0;
  private firstRefusedSentAt = Number.POSITIVE_INFINITY;
  private answeredAfterRefusal = 0;

  /** A request sent at `sentAt` was answered. */
  answer(sentAt: number): void {
    if (sentAt < this.from) return;
    this.answered++;
    if (sentAt > this.firstRefusedSentAt) this.answeredAfterRefusal++;
  }

  /** A request sent at `sentAt` was refused (429). */
  refusal(sentAt: number): void {
    if (sentAt >= this.from) this.firstRefusedSentAt = Math.min(this.firstRefusedSentAt, sentAt);
  }

  /** Everything is refused at `now`: whether the stretch since the last pause was a count spent. A new stretch starts. */
  paused(now: number): boolean {
    const spent =
      this.from > Number.NEGATIVE_INFINITY &&
      this.answered >= MIN_COUNT &&
      this.answeredAfterRefusal <= SLACK;
    this.from = now;
    this.answered = 0;
    this.firstRefusedSentAt = Number.POSITIVE_INFINITY;
    this.answeredAfterRefusal = 0;
    return spent;
  }
}
