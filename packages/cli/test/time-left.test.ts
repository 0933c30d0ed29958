// The time a run has left (issue 40): rows answered from the cache are written at once, and a
// resumed run that counted them said "4 s" at 46 % and took 20 s.
import { describe, expect, it } from 'vitest';
import { timeLeft } from '../src/time-left.js';

describe('timeLeft', () => {
  it('on a resume, counts the pace from the first transaction, not the cached rows before it', () => {
    let now = 0;
    const eta = timeLeft(() => now);
    // 460 rows of 1,000 come from the cache in 0.2 s: nothing paid, no pace known yet.
    now = 200;
    expect(eta.update(460, 0, 1000)).toBeUndefined();
    // Then the service: the first transaction, and 10 rows a second from there.
    now = 300;
    expect(eta.update(461, 1, 1000)).toBeUndefined();
    now = 2300;
    // 20 rows in 2 s: the 519 rows left take about 52 s (it said 4 s, counting the cached rows).
    expect(eta.update(481, 21, 1000)).toBeCloseTo(51_900, -2);
  });

  it('a fresh run: rows left at the pace since its first transaction', () => {
    let now = 0;
    const eta = timeLeft(() => now);
    now = 100;
    eta.update(0, 1, 400);
    now = 2100;
    expect(eta.update(100, 100, 400)).toBe(6000);
    expect(eta.rowsPerSecond(100)).toBeCloseTo(47.6, 1);
  });
});
