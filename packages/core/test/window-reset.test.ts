// A used-up count's reset, bounded and probed for (window-reset.ts), each rule on a hand-set clock:
// the simulations of pace.test.ts judge these only as whole runs.
import { describe, expect, it } from 'vitest';
import { CountSpent, WindowReset } from '../src/pace/window-reset.js';

/** A reset refused once: a request sent at 1000, answered at 1100, "Retry-After: 2". */
function refusedOnce() {
  const reset = new WindowReset();
  reset.refused(1000, 1100, 2000);
  // The reset: no earlier than 1000 + 2000 - 1000 (the seconds were rounded up from when it left),
  // no later than 1100 + 2000 (counted from its answer at the latest).
  return reset;
}

/**
 * The reset is known to lie in [earliest, latest): a refusal sent from the earliest on is a probe's,
 * and the count is closed until the latest. Last: reaching the latest opens the count.
 */
function expectBounds(reset: WindowReset, earliest: number, latest: number) {
  expect(reset.isProbe(earliest - 1), 'sent before the earliest').toBe(false);
  expect(reset.isProbe(earliest), 'sent at the earliest').toBe(true);
  expect(reset.closed(latest - 1), 'just before the latest').toBe(true);
  expect(reset.closed(latest), 'at the latest').toBe(false);
}

describe('WindowReset', () => {
  it('before any refusal is open: everything goes now, nothing is a probe, nothing opens', () => {
    const reset = new WindowReset();
    expect(reset.closed(0)).toBe(false);
    expect(reset.readyAt(5)).toBe(5);
    expect(reset.isProbe(5)).toBe(false);
    expect(reset.answered(5)).toBe(false);
    reset.sent(5);
    expect(reset.readyAt(6)).toBe(6);
  });

  it('a refusal bounds the reset by a second of rounding: closed until its latest, the first probe at its earliest', () => {
    const reset = refusedOnce();
    expect(reset.probing).toBe(true);
    expect(reset.readyAt(1200)).toBe(2000);
    expect(reset.closed(3099)).toBe(true);
    expect(reset.closed(3100)).toBe(false);
    expect(reset.readyAt(3100)).toBe(3100);
  });

  it('an answer later than a second past the send bounds the earliest by the answer: the seconds are counted at most from it', () => {
    const reset = new WindowReset();
    // Sent at 0, answered at 1500 (a slow answer), "Retry-After: 1": it ends by 2500, and may have
    // ended at 0 + 1000 - 1000 = 0, yet never before the answer said it was not over: min(0, 2500).
    reset.refused(0, 1500, 1000);
    expect(reset.readyAt(1500)).toBe(1500);
    expect(reset.closed(2499)).toBe(true);
    expect(reset.closed(2500)).toBe(false);
  });

  it('probes go one at a time, a quarter of a second apart, never past the latest', () => {
    const reset = refusedOnce();
    reset.sent(2000);
    expect(reset.readyAt(2010)).toBe(2250);
    reset.sent(2250);
    expect(reset.readyAt(2300)).toBe(2500);
    reset.sent(2950);
    // The next would be at 3200; the reset has come by 3100 whatever happens.
    expect(reset.readyAt(3000)).toBe(3100);
    // A late caller goes at once.
    expect(reset.readyAt(3050)).toBe(3100);
    reset.sent(3100);
    expect(reset.readyAt(3100)).toBe(3100);
  });

  it('a refusal of a request sent inside the bounds is a probe; one sent before them, or at the latest, is not', () => {
    const reset = refusedOnce();
    expect(reset.isProbe(1999)).toBe(false);
    expect(reset.isProbe(2000)).toBe(true);
    expect(reset.isProbe(3099)).toBe(true);
    expect(reset.isProbe(3100)).toBe(false);
    // Open again, nothing is a probe.
    expect(reset.answered(2000)).toBe(true);
    expect(reset.isProbe(2500)).toBe(false);
  });

  it('an answer to a request sent before the earliest is of the old count and opens nothing', () => {
    const reset = refusedOnce();
    expect(reset.answered(1999)).toBe(false);
    expect(reset.closed(2500)).toBe(true);
    expect(reset.answered(2000)).toBe(true);
    expect(reset.probing).toBe(false);
    expect(reset.closed(2500)).toBe(false);
    expect(reset.readyAt(2500)).toBe(2500);
    // Once open, a further answer opens nothing more.
    expect(reset.answered(2600)).toBe(false);
  });

  it('a second refusal of the same window narrows it from both sides', () => {
    const reset = refusedOnce();
    // A probe sent at 2250, answered at 2300, "Retry-After: 1": the reset is in [2250, 3300] by
    // itself, so in [2250, 3100] with the first.
    reset.refused(2250, 2300, 1000);
    expectBounds(reset, 2250, 3100);
    // A refusal that says less than what is known (sent earlier, answered as late) changes nothing;
    // one answered earlier brings the latest in.
    const again = refusedOnce();
    again.refused(900, 1100, 2000);
    expectBounds(again, 2000, 3100);
    const sooner = refusedOnce();
    sooner.refused(1000, 1050, 2000);
    expectBounds(sooner, 2000, 3050);
  });

  it('a refusal whose earliest is at or past the known latest is a later window: its bounds replace the old ones', () => {
    const reset = refusedOnce();
    // Sent at 4100, answered at 4150, "Retry-After: 1": its window resets in [4100, 5150].
    reset.refused(4100, 4150, 1000);
    expect(reset.readyAt(4150)).toBe(4150);
    expectBounds(reset, 4100, 5150);
    // At exactly the old latest: still a later window, not a narrowing to nothing.
    const edge = refusedOnce();
    edge.refused(3100, 3120, 1000);
    expect(edge.isProbe(3100)).toBe(true);
    expect(edge.closed(4119)).toBe(true);
  });

  it('the next probe never comes before the earliest, even when the last one went long before', () => {
    const reset = refusedOnce();
    reset.sent(2000);
    // A later window, whose earliest is well past the last probe's next turn (2250).
    reset.refused(5000, 5010, 2000);
    expect(reset.readyAt(5010)).toBe(6000);
    // And a narrowing does not bring the next probe back before one already set.
    const narrowed = refusedOnce();
    narrowed.sent(2900);
    narrowed.refused(2000, 2010, 1000);
    expect(narrowed.readyAt(2950)).toBe(3010);
  });

  it('sends while open set no probe turn: a refusal after them is probed for from its earliest', () => {
    const reset = refusedOnce();
    expect(reset.answered(2000)).toBe(true);
    reset.sent(2500);
    // Refused again (sent at 2600, answered at 2610, "Retry-After: 1"): its reset may be at 2600.
    reset.refused(2600, 2610, 1000);
    expect(reset.readyAt(2610)).toBe(2610);
  });

  it('a closed reset that passes its latest opens by itself: requests go at once', () => {
    const reset = refusedOnce();
    expect(reset.closed(3200)).toBe(false);
    expect(reset.probing).toBe(false);
    reset.sent(3200);
    expect(reset.readyAt(3201)).toBe(3201);
    expect(reset.isProbe(3000)).toBe(false);
  });
});

describe('CountSpent', () => {
  /** A stretch after a first pause at 0: `answered` let through, a refusal, `afterRefusal` answered. */
  function stretch(answered: number, afterRefusal = 0) {
    const spent = new CountSpent();
    expect(spent.paused(0)).toBe(false);
    for (let i = 0; i < answered; i++) spent.answer(10 + i);
    spent.refusal(500);
    for (let i = 0; i < afterRefusal; i++) spent.answer(501 + i);
    return spent;
  }

  it('the first pause is never a count spent: there is no stretch before it to judge', () => {
    const spent = new CountSpent();
    for (let i = 0; i < 50; i++) spent.answer(i);
    spent.refusal(60);
    expect(spent.paused(100)).toBe(false);
  });

  it('twenty let through, then everything refused: a count spent', () => {
    expect(stretch(20).paused(1000)).toBe(true);
    expect(stretch(19).paused(1000)).toBe(false);
  });

  it('allows two answers sent after the first refusal (requests arrive out of order), not three', () => {
    expect(stretch(20, 2).paused(1000)).toBe(true);
    expect(stretch(20, 3).paused(1000)).toBe(false);
  });

  it('an answer sent with the first refusal, at the same moment, is not after it', () => {
    const spent = stretch(20);
    for (let i = 0; i < 3; i++) spent.answer(500);
    expect(spent.paused(1000)).toBe(true);
  });

  it('counts only what was sent after the last pause: answers and refusals of the stretch before are passed over', () => {
    const spent = new CountSpent();
    spent.paused(0);
    spent.paused(1000);
    // Sent before the pause at 1000, answered after it.
    for (let i = 0; i < 30; i++) spent.answer(900);
    for (let i = 0; i < 10; i++) spent.answer(1001 + i);
    expect(spent.paused(2000)).toBe(false);
    // A refusal of a request sent before the pause does not start the stretch's refusals.
    spent.refusal(1999);
    for (let i = 0; i < 20; i++) spent.answer(2001 + i);
    for (let i = 0; i < 3; i++) spent.answer(2100 + i);
    spent.refusal(2200);
    expect(spent.paused(3000)).toBe(true);
  });

  it('a request sent at the very moment of a pause is of the stretch it starts', () => {
    const sameMoment = new CountSpent();
    sameMoment.paused(0);
    sameMoment.paused(1000);
    sameMoment.refusal(1000);
    for (let i = 0; i < 20; i++) sameMoment.answer(1001 + i);
    // Refused at 1000: the twenty sent after it are let through after a refusal, not a count spent.
    expect(sameMoment.paused(2000)).toBe(false);
    const counted = new CountSpent();
    counted.paused(0);
    counted.paused(1000);
    for (let i = 0; i < 20; i++) counted.answer(1000);
    counted.refusal(1001);
    expect(counted.paused(2000)).toBe(true);
  });

  it('each pause starts a new stretch: nothing of the last one is counted again', () => {
    const spent = stretch(20, 2);
    expect(spent.paused(1000)).toBe(true);
    // Nothing answered since: not a count spent.
    expect(spent.paused(2000)).toBe(false);
    // A stretch with its refusal forgotten: 20 answered after 2000, then one refusal, then two more.
    for (let i = 0; i < 20; i++) spent.answer(2001 + i);
    spent.refusal(2100);
    spent.answer(2101);
    spent.answer(2102);
    expect(spent.paused(3000)).toBe(true);
  });
});
