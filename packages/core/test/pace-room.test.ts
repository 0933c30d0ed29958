// Whether another attempt may go on the wire now (Pace.hasRoom): what the bulk engine's queue of
// turns asks before it lets a request out. Under auto, no more in flight than the limit; with a
// fixed number the caller (a pool of that size) keeps it, so the pace never holds a request back.
import { describe, expect, it } from 'vitest';
import { INITIAL_CONCURRENCY, Pace } from '../src/index.js';

describe('Pace.hasRoom', () => {
  it('under auto: room until as many are in flight as the limit, and again when one ends', () => {
    const pace = new Pace({}, 0);
    expect(pace.concurrency).toBe(INITIAL_CONCURRENCY);
    for (let i = 0; i < INITIAL_CONCURRENCY; i++) {
      expect(pace.hasRoom()).toBe(true);
      pace.sent(0);
    }
    expect(pace.hasRoom()).toBe(false);
    pace.ended(0, 10, 'answered');
    expect(pace.hasRoom()).toBe(true);
  });

  it('with a fixed number: always room, however many are in flight', () => {
    const pace = new Pace({ fixedConcurrency: 2 }, 0);
    for (let i = 0; i < 5; i++) pace.sent(0);
    expect(pace.hasRoom()).toBe(true);
  });
});
