// The queue of turns that admits each attempt of a bulk run onto the wire: a place in flight, the
// rate's spacing and the end of a 429 pause, as core's Pace and the sender's pauses allow. Apart
// from the Sender because it is a concept of its own (one ordered queue and the loop that lets it
// go), and it is on the hot path: one call per attempt, no promise when nothing waits.

import type { Pace } from '@enrich/core';

/** What the turns read the time from (called as a method: `clock.now()`). */
interface TurnClock {
  readonly now: () => number;
}

export class Turns {
  /** Attempts waiting for their turn to go on the wire, in order, and the loop that lets them go. */
  private readonly waiting: (() => void)[] = [];
  private running = false;
  /** Wakes the turn loop early: an attempt ended (a place may be free), or the run stopped. */
  private nudgeLoop: (() => void) | undefined;
  private pausedUntil = 0;
  private stopped = false;

  constructor(
    private readonly pace: Pace,
    private readonly clock: TurnClock,
  ) {}

  // An attempt's turn: at once when nothing waits and the pace allows (the common case, and the only
  // one with a fixed number and no rate), else in order behind the others. The pace is told at the
  // moment the turn is given, so that the next one is judged with this one counted. The Sender reads
  // the clock once its turn is given and takes that as the send time (a latency is measured from when
  // the request left, not from when it was let go: a millisecond or two apart when many are let go
  // at once); core's rate headers find a request back by the last turn given at or before it.
  // A retry goes before requests not yet sent: finishing what was started first, as TCP resends
  // before it sends anything new (and a run whose allowance is gone finds it out in a few attempts).
  wait(retry: boolean): Promise<void> {
    const now = this.clock.now();
    if (this.waiting.length === 0 && this.mayGoAt(now) === 0) {
      this.pace.sent(now);
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      if (retry) this.waiting.unshift(resolve);
      else this.waiting.push(resolve);
      void this.give();
    });
  }

  /** Every attempt waits until `at` (epoch ms), or later if already paused longer. */
  pauseUntil(at: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, at);
  }

  /** An attempt ended: a place may be free. */
  nudge(): void {
    this.nudgeLoop?.();
  }

  /** The run stopped sending: every waiting attempt is let go, to find it so and send nothing. */
  stop(): void {
    this.stopped = true;
    this.nudgeLoop?.();
  }

  /** 0 when an attempt may go now; else how long until it may (Infinity: until a place is free). */
  private mayGoAt(now: number): number {
    const at = Math.max(this.pausedUntil, this.pace.readyAt(now));
    if (at > now) return at - now;
    return this.pace.hasRoom() ? 0 : Number.POSITIVE_INFINITY;
  }

  private async give(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.waiting.length > 0) {
        if (this.stopped) {
          for (const go of this.waiting.splice(0)) go();
          break;
        }
        const now = this.clock.now();
        const wait = this.mayGoAt(now);
        if (wait > 0) await this.loopWait(wait);
        else {
          this.pace.sent(now);
          this.waiting.shift()?.();
        }
      }
    } finally {
      this.running = false;
    }
  }

  // The turn loop's wait: `ms` (Infinity: until an attempt ends), cut short by a nudge. A timer of
  // its own, cleared when nudged, so that a long spacing never holds the process after the run.
  private loopWait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = ms === Number.POSITIVE_INFINITY ? undefined : setTimeout(done, ms);
      function done(this: void) {
        clearTimeout(timer);
        resolve();
      }
      this.nudgeLoop = () => {
        this.nudgeLoop = undefined;
        done();
      };
    });
  }
}
