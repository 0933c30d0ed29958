// The queue of turns (turns.ts): each attempt is told to the pace once, when its turn is given, in
// order and spaced by the rate; an attempt let go because the run stopped is never told.
import { Pace } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { Turns } from '../src/sending/turns.js';

/** A pace that records the times it was told attempts left. */
class RecordingPace extends Pace {
  readonly sentAt: number[] = [];
  override sent(now: number, count = 1): void {
    this.sentAt.push(now);
    super.sent(now, count);
  }
}

/** The time, moved on by at least a millisecond every time it is read. */
function tickingClock() {
  let last = 0;
  return {
    now: () => {
      last = Math.max(Date.now(), last + 1);
      return last;
    },
  };
}

describe('Turns', () => {
  it('tells the pace of each attempt once, at once or when its turn comes, spaced by the rate', async () => {
    // Spaced 50 ms apart by the rate: the first goes at once, the others wait their turn.
    const pace = new RecordingPace({ maxRate: 20 });
    const turns = new Turns(pace, tickingClock());
    await Promise.all([turns.wait(false), turns.wait(false), turns.wait(false)]);
    expect(pace.sentAt).toHaveLength(3);
    expect(new Set(pace.sentAt).size).toBe(3);
    const [first = 0, second = 0, third = 0] = pace.sentAt;
    expect(second - first).toBeGreaterThanOrEqual(49);
    expect(third - second).toBeGreaterThanOrEqual(49);
  });

  it('an attempt let go when the run stops was never told to the pace as sent', async () => {
    const pace = new RecordingPace({ maxRate: 1 });
    const turns = new Turns(pace, tickingClock());
    await turns.wait(false);
    const first = pace.sentAt[0];
    const waiting = turns.wait(false);
    turns.stop();
    await waiting;
    expect(pace.sentAt).toEqual([first]);
  });
});
