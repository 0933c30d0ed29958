// The concurrency limit's rules one at a time, on a hand-set clock (pace-clock.ts): how slow start
// doubles, when a longer latency counts as a queue and how far a queue cuts, how a failure cuts and
// holds the limit, and the reason each change shows. pace.test.ts judges whole simulated runs; a
// rule broken a little passes those, not these. Latencies here are constant, so the noise the
// controller tolerates is its least: 5 % over the baseline (latency-noise.ts).
import { describe, expect, it } from 'vitest';
import { Pace } from '../src/index.js';
import { fullRounds, knownState, roundTrip } from './pace-clock.js';

/** The queue the controller estimates at `limit` in flight (Vegas): limit x (1 - baseline x 1.05 / latency). */
const queueAt = (limit: number, latencyMs: number, baselineMs = 100) =>
  limit * (1 - (baselineMs * 1.05) / latencyMs);

describe('slow start: the limit doubles per round trip while nothing holds it', () => {
  it('grows only while half the limit is in flight: a client sending less does not raise it', () => {
    const pace = new Pace({}, 0);
    // 3 of 8 in flight: the limit stays.
    let at = roundTrip(pace, 0, 3, 100);
    expect(pace.concurrency).toBe(8);
    // 4 of 8, half: the first answer raises it to 9, and 4 of 9 is under half.
    at = roundTrip(pace, at, 4, 100);
    expect(pace.concurrency).toBe(9);
    expect(pace.reading(at).change).toBe('faster');
  });

  it('at most doubles in one round trip, however many answers come back in it', () => {
    const pace = new Pace({}, 0);
    for (let i = 0; i < 8; i++) pace.sent(0);
    // Five of the round's eight back: one more allowed in flight for each.
    for (let i = 0; i < 5; i++) pace.ended(0, 100, 'answered');
    expect(pace.concurrency).toBe(13);
    // Five more sent and back before the round's last three: the limit stops at twice 8.
    for (let i = 0; i < 5; i++) pace.sent(100);
    for (let i = 0; i < 5; i++) pace.ended(100, 150, 'answered');
    expect(pace.concurrency).toBe(16);
  });

  it('a round trip within the millisecond is no baseline: later rounds at 100 ms are not read as a queue', () => {
    const pace = new Pace({}, 0);
    let at = roundTrip(pace, 0, 1, 0);
    expect(pace.snapshot().baseline).toBeUndefined();
    at = fullRounds(pace, at, 3, 100);
    expect(pace.snapshot()).toMatchObject({ baseline: 100, slowStart: true });
    expect(pace.concurrency).toBe(64);
  });
});

describe('a queue: latency past what the noise explains', () => {
  it('in slow start, a queue past alpha holds the limit one round; confirmed, the limit goes to the estimate', () => {
    const pace = new Pace({}, 0, knownState({ limit: 8, slowStart: true }));
    // The round at 150 ms doubles the limit to 16; at 16 in flight that latency is a queue of 4.8,
    // past alpha (3 x log10 16 = 3.6) though under beta (7.2).
    let at = roundTrip(pace, 0, 8, 150);
    expect(queueAt(16, 150)).toBeCloseTo(4.8, 6);
    expect(pace.concurrency).toBe(16);
    expect(pace.snapshot().slowStart).toBe(true);
    // The next round confirms it: no doubling in it, then out of slow start at the estimate
    // limit x baseline / latency + alpha = 16 x 100 / 150 + 3.6 = 14.3.
    at = roundTrip(pace, at, 16, 150);
    expect(pace.concurrency).toBe(14);
    expect(pace.snapshot().slowStart).toBe(false);
    expect(pace.reading(at)).toMatchObject({ change: 'slower-queueing', changedAt: 300 });
  });

  it('leaving slow start on a queue cuts at least one whole request, when the estimate is above that', () => {
    const pace = new Pace({}, 0, knownState({ limit: 8, slowStart: true }));
    // 138 ms at 16 in flight: a queue of 3.8, just past alpha; the estimate 16 x 100 / 138 + 3.6 = 15.2.
    const at = roundTrip(pace, 0, 8, 138);
    roundTrip(pace, at, 16, 138);
    expect(pace.snapshot().limit).toBe(15);
  });

  it('out of slow start, one queued round does not cut; the second in a row does, by a quarter at most', () => {
    const pace = new Pace({}, 0, knownState({ limit: 20 }));
    // 200 ms against 100: a queue of 9.5, past beta (6 x log10 20 = 7.8), not past twice beta.
    let at = roundTrip(pace, 0, 20, 200);
    expect(pace.concurrency).toBe(20);
    expect(pace.reading(at).change).toBe('remembered');
    at = roundTrip(pace, at, 20, 200);
    // The estimate, 20 x 100 / 200 + 3.9 = 13.9, is under three quarters of 20.
    expect(pace.concurrency).toBe(15);
    expect(pace.reading(at)).toMatchObject({ change: 'slower-queueing', changedAt: 400 });
  });

  it('the queue tolerated grows with the limit: a queue of 6 at 32 in flight is no reason to cut', () => {
    const pace = new Pace({}, 0, knownState({ limit: 32 }));
    // 130 ms at 32: a queue of 6.2, past alpha (4.5), under beta (6 x log10 32 = 9.0).
    expect(queueAt(32, 130)).toBeCloseTo(6.15, 2);
    const at = fullRounds(pace, 0, 3, 130);
    expect(pace.concurrency).toBe(32);
    expect(pace.reading(at).change).toBe('remembered');
  });

  it('a queue under alpha at 32 in flight (3 of them): the limit grows by one', () => {
    const pace = new Pace({}, 0, knownState({ limit: 32 }));
    expect(queueAt(32, 116)).toBeCloseTo(3.03, 2);
    const at = roundTrip(pace, 0, 32, 116);
    expect(pace.concurrency).toBe(33);
    expect(pace.reading(at)).toMatchObject({ change: 'faster', changedAt: 116 });
  });
});

describe('growing: only a round that used its limit, never past the maximum', () => {
  it('a round with fewer in flight than the limit does not raise it; a full one does, by one', () => {
    const pace = new Pace({}, 0, knownState({ limit: 10 }));
    let at = roundTrip(pace, 0, 5, 100);
    expect(pace.concurrency).toBe(10);
    at = roundTrip(pace, at, 10, 100);
    expect(pace.concurrency).toBe(11);
  });

  it('at the maximum, good rounds do not claim it got faster', () => {
    const pace = new Pace({ maxConcurrency: 10 }, 0, knownState({ limit: 10 }));
    const at = fullRounds(pace, 0, 3, 100);
    expect(pace.concurrency).toBe(10);
    expect(pace.reading(at)).toMatchObject({ change: 'remembered', changedAt: 0 });
  });
});

describe('failures (5xx, timeouts): a tenth off, and under that limit for 5 s', () => {
  it('a failure in a round cuts the limit by a tenth and says why', () => {
    const pace = new Pace({}, 0, knownState({ limit: 10 }));
    for (let i = 0; i < 10; i++) pace.sent(0);
    pace.ended(0, 100, 'failed');
    for (let i = 0; i < 9; i++) pace.ended(0, 100, 'answered');
    expect(pace.snapshot().limit).toBeCloseTo(9, 9);
    expect(pace.reading(100)).toMatchObject({ change: 'slower-failing', changedAt: 100 });
  });

  it('at one in flight a failure cannot slow it: the reason shown does not say it did', () => {
    const pace = new Pace({}, 0, knownState({ limit: 1 }));
    const at = roundTrip(pace, 0, 1, 100, 'failed');
    expect(pace.concurrency).toBe(1);
    expect(pace.reading(at)).toMatchObject({ change: 'remembered', changedAt: 0 });
  });

  it('climbs back to one under the limit that failed, no further for 5 s, then past it', () => {
    const pace = new Pace({}, 0, knownState({ limit: 20 }));
    let at = roundTrip(pace, 0, 20, 100, 'failed');
    expect(pace.concurrency).toBe(18);
    // Good full rounds: 19, then held there until 5 s after the failure (at 100 ms).
    at = fullRounds(pace, at, 1, 100);
    expect(pace.concurrency).toBe(19);
    at = fullRounds(pace, at, 48, 100);
    expect(at).toBe(5000);
    expect(pace.concurrency).toBe(19);
    // The round back 5 s after the failure may go past it.
    at = fullRounds(pace, at, 1, 100);
    expect(pace.concurrency).toBe(20);
    expect(pace.reading(at)).toMatchObject({ change: 'faster', changedAt: 5100 });
  });
});
