// The rate's rules one at a time, on a hand-set clock (pace-clock.ts): what a 429 cuts the rate to
// and when it cuts at all, a service that refuses everything (a pause, counted), how fast the rate
// grows back and when that shows as "faster", how sends are spaced, and what --max-rate, a fixed
// number and a state carried from another execution change. pace.test.ts judges whole simulated
// runs; a rule broken a little passes those, not these.
import { describe, expect, it } from 'vitest';
import { Pace, rememberedState } from '../src/index.js';
import { knownState, steady } from './pace-clock.js';

/** The first 429 cuts to 0.7 of what the service let through per second (rate-estimate.ts). */
const FIRST_CUT = 0.7;

describe('a 429 among answers: the rate cut to what the service let through', () => {
  it('the first cut counts from the first send: 0.7 of 30 let through in 0.301 s', () => {
    const pace = new Pace({}, 0);
    steady(pace, 0, 300);
    pace.sent(300);
    expect(pace.ended(300, 301, 'throttled')).toBe(false);
    // 31 sent since the first send at 0, one refused.
    expect(pace.ratePerSecond).toBeCloseTo((FIRST_CUT * 30) / 0.301, 6);
    expect(pace.reading(301)).toMatchObject({ change: 'slower-throttled', changedAt: 301 });
  });

  it('three requests sent are enough to judge by: two answered, one refused', () => {
    const pace = new Pace({}, 0);
    steady(pace, 0, 20);
    pace.sent(20);
    pace.ended(20, 21, 'throttled');
    // Over the shortest span measured, 0.1 s: 2 let through, 20/s.
    expect(pace.ratePerSecond).toBeCloseTo(FIRST_CUT * 20, 6);
  });

  it('one cut per two round trips of a 429 (at least 100 ms): 429s sooner say nothing new', () => {
    const pace = new Pace({}, 0);
    steady(pace, 0, 1000);
    // Each 429 here comes 80 ms after its request left: a cut, then none for 160 ms.
    pace.sent(1000);
    steady(pace, 1010, 1080);
    pace.ended(1000, 1080, 'throttled');
    expect(pace.reading(1080)).toMatchObject({ change: 'slower-throttled', changedAt: 1080 });
    const cut = pace.ratePerSecond ?? 0;
    steady(pace, 1080, 1130);
    pace.sent(1130);
    steady(pace, 1140, 1160);
    pace.sent(1160);
    steady(pace, 1170, 1210);
    pace.ended(1130, 1210, 'throttled');
    expect(pace.reading(1210).changedAt).toBe(1080);
    steady(pace, 1210, 1240);
    pace.ended(1160, 1240, 'throttled');
    expect(pace.reading(1240).changedAt).toBe(1240);
    expect(pace.ratePerSecond).toBeLessThan(cut);
  });
});

describe('a service that refuses everything: a pause, not a pace', () => {
  it('after a pause without Retry-After (1 s), what is let through is measured from its end', () => {
    const pace = new Pace({}, 0);
    const refused = [0, 10, 20].map((at) => {
      pace.sent(at);
      return pace.ended(at, at + 1, 'throttled');
    });
    expect(refused).toEqual([false, false, true]);
    // The pause ends at 1021: 31 sent from there, one refused, over 0.301 s.
    steady(pace, 1021, 1321);
    pace.sent(1321);
    expect(pace.ended(1321, 1322, 'throttled')).toBe(false);
    expect(pace.ratePerSecond).toBeCloseTo((FIRST_CUT * 30) / 0.301, 6);
  });

  it('a 429 for a request sent before the last pause is not another refusal in a row', () => {
    const pace = new Pace({}, 0);
    const refuse = (at: number, latencyMs = 1) => {
      pace.sent(at);
      return () => pace.ended(at, at + latencyMs, 'throttled');
    };
    // W leaves at 0 and hangs; three sent a second later are refused: a pause from 1121 to 2121.
    pace.sent(0);
    for (const at of [1100, 1110, 1120]) refuse(at)();
    expect(pace.refusedInARow).toBe(1);
    // After it, X hangs, two are refused (a cut, as X is not), Y hangs, and three are refused
    // slowly (600 ms), too soon after the cut to cut again.
    pace.sent(2121);
    refuse(2130)();
    refuse(2140)();
    pace.sent(2200);
    const slow = [2300, 2310, 2320].map((at) => refuse(at, 600));
    for (const end of slow) expect(end()).toBe(false);
    // W comes back 429 once X and Y are older than the second measured: all sent since is refused,
    // so every request waits; but W left before the last pause: not a new refusal in a row (the
    // run stops for a used-up allowance after so many in a row).
    expect(pace.ended(0, 3250, 'throttled')).toBe(true);
    expect(pace.refusedInARow).toBe(1);
  });
});

describe('the rate growing back', () => {
  it('by at most a tenth per second, however far under the rate that drew the 429', () => {
    const climbSeconds = Math.cbrt(0.1 / 0.0037);
    const pace = new Pace({}, 0, knownState({ rate: 10, rateMax: 20, climbSeconds }));
    // 20 answers 50 ms apart; the first starts the clock of growth.
    steady(pace, 0, 1000, 50);
    expect(pace.ratePerSecond).toBeCloseTo(10 * 1.005 ** 19, 6);
  });

  it('shows "faster" when it is back where the 429 came, and keeps that time', () => {
    const pace = new Pace(
      {},
      0,
      knownState({ rate: 19.5, rateMax: 20, climbSeconds: 3, cutAt: -60_000, change: 'slower-throttled' }),
    );
    let crossedAt: number | undefined;
    for (let at = 0; at < 1000; at += 50) {
      steady(pace, at, at + 1, 50);
      const rate = pace.ratePerSecond ?? 0;
      if (crossedAt === undefined && rate >= 20) crossedAt = at + 5;
      expect(pace.reading(at + 5).change).toBe(crossedAt === undefined ? 'slower-throttled' : 'faster');
    }
    expect(crossedAt).toBe(305);
    expect(pace.reading(1000)).toMatchObject({ change: 'faster', changedAt: 305 });
  });

  it('a rate remembered from the last run that grows past it keeps saying where it started from', () => {
    const pace = new Pace(
      {},
      0,
      rememberedState({ concurrency: 8, ratePerSecond: 20, baselineMs: 100, climbing: false }, 0),
    );
    steady(pace, 0, 1000, 40);
    expect(pace.ratePerSecond).toBeGreaterThan(20);
    expect(pace.reading(1000)).toMatchObject({ change: 'remembered', changedAt: 0 });
  });

  it('an execution started a minute later grows the rate as one started at once', () => {
    const state = knownState({ rate: 19.5, rateMax: 20, climbSeconds: 3, cutAt: 1000, nextStartAt: 4000 });
    const atOnce = new Pace({}, 4000, { ...state });
    const later = new Pace({}, 64_000, { ...state });
    // The minute between is not time since the cut: the cut moves by it.
    expect(later.snapshot().cutAt).toBe(61_000);
    steady(atOnce, 4000, 5000, 50);
    steady(later, 64_000, 65_000, 50);
    expect(later.ratePerSecond).toBeCloseTo(atOnce.ratePerSecond ?? 0, 9);
    expect(atOnce.ratePerSecond).toBeLessThan(20.1);
  });
});

describe('spacing the sends', () => {
  it('once a 429 set a rate, sends are spaced by it alone, whatever the latency', () => {
    const pace = new Pace({}, 0, knownState({ limit: 2, rate: 50, rateMax: 60, latency: 1000 }));
    expect(pace.readyAt(0)).toBe(0);
    pace.sent(0);
    expect(pace.readyAt(0)).toBe(20);
  });

  it('--max-rate caps a rate learnt from 429s, and does not raise one under it', () => {
    const learnt = knownState({ rate: 50, rateMax: 60 });
    const capped = new Pace({ maxRate: 5 }, 0, { ...learnt });
    expect(capped.ratePerSecond).toBe(5);
    capped.sent(0);
    expect(capped.readyAt(0)).toBe(200);
    expect(new Pace({ maxRate: 100 }, 0, { ...learnt }).ratePerSecond).toBe(50);
  });

  it("the service's count spent (rate headers): an automatic pace waits for its reset, a fixed number does not", () => {
    const spent = { remaining: 0, resetAt: 10_000, earliestResetAt: 9000, sentAt: 0 };
    for (const [options, ready] of [
      [{}, 10_000],
      [{ fixedConcurrency: 4 }, 10],
    ] as const) {
      const pace = new Pace(options, 0);
      pace.sent(0);
      pace.ended(0, 10, 'answered');
      pace.rateLimitHint(spent);
      expect(pace.readyAt(10)).toBe(ready);
    }
  });

  it('a fixed number given a learnt state: sends go out at once, spaced by nothing it learnt', () => {
    const withRate = new Pace({ fixedConcurrency: 4 }, 0, knownState({ rate: 10, nextStartAt: 500 }));
    expect(withRate.ratePerSecond).toBeUndefined();
    expect(withRate.readyAt(0)).toBe(0);
    const withLatency = new Pace({ fixedConcurrency: 4 }, 0, knownState({ latency: 100, slowStart: true }));
    withLatency.sent(0);
    expect(withLatency.readyAt(0)).toBe(0);
    expect(withLatency.concurrency).toBe(4);
  });
});
