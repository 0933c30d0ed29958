// The queue of turns (turns.ts): an attempt's send time is the time the pace was told it left, so
// that the pace hears of its end under the same one. (Read a moment later, it was a millisecond or
// two off at times: core's rate headers match the requests in flight by it, an answer's request was
// not found, and the count left in a window was taken for one or two less than it was: the last
// requests of a window waited for the next one, a whole window more at the end of a short run.)
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
  it('gives each attempt the time the pace was told it left, at once or after waiting its turn', async () => {
    // Spaced 50 ms apart by the rate: the first goes at once, the others wait their turn.
    const pace = new RecordingPace({ maxRate: 20 });
    const turns = new Turns(pace, tickingClock());
    const given = await Promise.all([turns.wait(false), turns.wait(false), turns.wait(false)]);
    expect(given).toEqual(pace.sentAt);
    expect(new Set(given).size).toBe(3);
  });

  it('an attempt let go when the run stops was never told to the pace as sent', async () => {
    const pace = new RecordingPace({ maxRate: 1 });
    const turns = new Turns(pace, tickingClock());
    const first = await turns.wait(false);
    const waiting = turns.wait(false);
    turns.stop();
    expect(await waiting).toBeGreaterThan(first);
    expect(pace.sentAt).toEqual([first]);
  });
});
