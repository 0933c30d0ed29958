// Runs on one machine against one service and key hear each other end (bulk's pace-neighbours.ts)
// and the ones left take up the rate it was sending (Pace.neighbourEnded): the rule on a hand-set
// clock, then two whole runs on one token bucket (the bench's family f) in the simulation.
import { describe, expect, it } from 'vitest';
import { Pace } from '../src/index.js';
import { knownState } from './pace-clock.js';
import { simService, simulateClients } from './pace-sim.js';

describe('a run beside this one ended', () => {
  it('its rate is taken up at once, with as many more in flight, and said why', () => {
    const pace = new Pace({}, 0, knownState({ limit: 12, rate: 40, rateMax: 44, climbSeconds: 3, cutAt: 0 }));
    pace.neighbourEnded(20, 5000);
    expect(pace.ratePerSecond).toBe(60);
    expect(pace.concurrency).toBe(18);
    expect(pace.reading(5000)).toMatchObject({ change: 'neighbour-ended', changedAt: 5000 });
    // The new rate is where the rate stands, not a level to climb back to: it grows slowly from there.
    expect(pace.snapshot()).toMatchObject({ rateMax: 60, climbSeconds: 0, cutAt: 5000 });
  });

  it('no further than the most in flight allowed', () => {
    const pace = new Pace({ maxConcurrency: 16 }, 0, knownState({ limit: 12, rate: 40 }));
    pace.neighbourEnded(40, 100);
    expect(pace.ratePerSecond).toBe(80);
    expect(pace.concurrency).toBe(16);
  });

  it('changes nothing for a run with no rate (no 429 yet), a fixed number, or nothing freed', () => {
    const unpaced = new Pace({}, 0, knownState({ limit: 12 }));
    unpaced.neighbourEnded(30, 100);
    expect(unpaced.ratePerSecond).toBeUndefined();
    expect(unpaced.concurrency).toBe(12);
    const fixed = new Pace({ fixedConcurrency: 8 }, 0, knownState({ rate: 40 }));
    fixed.neighbourEnded(30, 100);
    expect(fixed.reading(100).change).toBe('remembered');
    const paced = new Pace({}, 0, knownState({ rate: 40 }));
    for (const freed of [0, -5, Number.NaN]) paced.neighbourEnded(freed, 100);
    expect(paced.ratePerSecond).toBe(40);
  });
});

describe("two runs on one token bucket (the bench's family f)", () => {
  /** Answers per second of the pair, from the first request to the last answer. */
  const pair = (seed: number, paces: () => Pace, hearWithinMs?: number) => {
    const service = simService({ rate: 100, latencyMs: 200, sigma: 0.3, seed, rateRetryAfterMs: 1000 });
    const runs = simulateClients(
      service,
      [0, 1].map(() => ({ requests: 300, pace: paces() })),
      hearWithinMs === undefined ? {} : { neighboursHearWithinMs: hearWithinMs },
    );
    const answered = runs.reduce((sum, r) => sum + r.answeredAt.length, 0);
    const attempts = runs.reduce((sum, r) => sum + r.attempts, 0);
    const throttled = runs.reduce((sum, r) => sum + r.throttled, 0);
    return {
      perSecond: answered / (Math.max(...runs.map((r) => r.endedAt)) / 1000),
      refused: throttled / attempts,
    };
  };
  const bestFixed = (seed: number) =>
    Math.max(...[8, 16, 32, 64].map((n) => pair(seed, () => new Pace({ fixedConcurrency: n })).perSecond));

  it('the one left takes up the rate of the one that ended: >= 0.9 of the best fixed setting, <= 3.5 % refused', () => {
    // Seeds on which the two split the bucket unevenly: the first to finish left the other at its
    // share (0.52 to 0.76 of the best fixed setting without hearing it end; told within a quarter of
    // a second, the poll of pace-neighbours.ts, 0.95 to 1.02).
    for (const seed of [3, 5, 6, 8]) {
      const best = bestFixed(seed);
      const alone = pair(seed, () => new Pace());
      const heard = pair(seed, () => new Pace(), 250);
      expect(alone.perSecond / best).toBeLessThan(0.8);
      expect(heard.perSecond / best).toBeGreaterThanOrEqual(0.9);
      expect(heard.refused).toBeLessThanOrEqual(0.035);
    }
  });
});
