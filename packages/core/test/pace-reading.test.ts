// What a progress line and a summary read from the pace (Pace.reading, isFixed, the 429s counted),
// on a hand-set clock: the reason shown from the start, answers per second over the last second
// (or since the first send, early on), and when --max-rate is the reason the pace is held.
import { describe, expect, it } from 'vitest';
import { Pace, type PaceState } from '../src/index.js';
import { knownState, steady } from './pace-clock.js';

describe('the reason shown from the start', () => {
  it('a run with nothing known starts small and says so; a fixed number says it is fixed', () => {
    const auto = new Pace({}, 0);
    expect(auto.reading(0)).toMatchObject({ change: 'start', changedAt: 0 });
    expect(auto.isFixed).toBe(false);
    const fixed = new Pace({ fixedConcurrency: 4 }, 0);
    expect(fixed.reading(0)).toMatchObject({ change: 'fixed', concurrency: 4 });
    expect(fixed.isFixed).toBe(true);
  });
});

describe('answers per second', () => {
  it('over the last second; early on, over the time since the first send', () => {
    const pace = new Pace({}, 1000);
    // 100 a second (one every 10 ms, back 5 ms later) from 1000.
    steady(pace, 1000, 1500);
    expect(pace.reading(1500).answersPerSecond).toBeCloseTo(100, 9);
    steady(pace, 1500, 2000);
    // Then 50 a second: the figure is the last second's, not the run's.
    steady(pace, 2000, 3000, 20);
    expect(pace.reading(3000).answersPerSecond).toBeCloseTo(50, 9);
  });
});

describe('the 429s counted', () => {
  it('every 429 it is told of, automatic or fixed; a fixed number pauses for a 429 only', () => {
    const auto = new Pace({}, 0);
    for (let i = 0; i < 3; i++) auto.sent(0);
    auto.ended(0, 10, 'throttled');
    auto.ended(0, 10, 'answered');
    auto.ended(0, 10, 'throttled');
    expect(auto.throttled).toBe(2);
    const fixed = new Pace({ fixedConcurrency: 2 }, 0);
    for (let i = 0; i < 3; i++) fixed.sent(0);
    expect(fixed.ended(0, 10, 'answered')).toBe(false);
    expect(fixed.ended(0, 10, 'failed')).toBe(false);
    expect(fixed.ended(0, 10, 'throttled')).toBe(true);
    expect(fixed.throttled).toBe(1);
  });
});

describe('--max-rate as the reason shown ("held at the maximum rate you set")', () => {
  /** A pace with --max-rate 20 (and `state`, if given) that sent one request every `everyMs` for half a second. */
  function sending(everyMs: number, state?: PaceState): Pace {
    const pace = new Pace({ maxRate: 20 }, 0, state);
    for (let at = 0; at < 500; at += everyMs) pace.sent(at);
    return pace;
  }

  it('sends at four fifths of the cap or more: the cap holds the pace', () => {
    // 8 in 0.5 s: 16/s, four fifths of 20.
    expect(sending(62.5).reading(500).change).toBe('capped');
    expect(sending(72).reading(500).change).toBe('start');
  });

  it('a rate a 429 brought under the cap is the reason, even while the sends are near the cap', () => {
    const throttled = knownState({ rate: 18, rateMax: 20, change: 'slower-throttled' });
    expect(sending(50, throttled).reading(500).change).toBe('slower-throttled');
  });

  it('a learnt rate at the cap or above it: the cap is the reason', () => {
    for (const rate of [20, 25]) {
      const state = knownState({ rate, rateMax: 30, change: 'faster' });
      expect(sending(50, state).reading(500).change).toBe('capped');
    }
  });
});
