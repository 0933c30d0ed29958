import { describe, expect, it } from 'vitest';
import { readRateLimit } from '../src/index.js';
import { HeaderBudget } from '../src/pace/rate-headers.js';

const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);

describe('readRateLimit: what a gateway says of its count', () => {
  it('reads the IETF draft field, structured and earlier forms', () => {
    expect(readRateLimit({ ratelimit: '"default";r=50;t=30' }, NOW)).toEqual({
      remaining: 50,
      resetAt: NOW + 30_000,
      earliestResetAt: expect.any(Number),
      sentAt: NOW,
    });
    expect(readRateLimit({ ratelimit: 'limit=100, remaining=7, reset=5' }, NOW)).toEqual({
      remaining: 7,
      resetAt: NOW + 5000,
      earliestResetAt: expect.any(Number),
      sentAt: NOW,
    });
  });

  it('reads X-RateLimit-Remaining with -Reset as seconds to go, or as an epoch in seconds', () => {
    expect(readRateLimit({ 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': '20' }, NOW)).toEqual({
      remaining: 12,
      resetAt: NOW + 20_000,
      earliestResetAt: expect.any(Number),
      sentAt: NOW,
    });
    const epoch = String(NOW / 1000 + 42);
    expect(readRateLimit({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': epoch }, NOW)).toEqual({
      remaining: 0,
      resetAt: NOW + 42_000,
      earliestResetAt: expect.any(Number),
      sentAt: NOW,
    });
  });

  it('takes nothing it cannot read, and no reset more than an hour away', () => {
    for (const headers of [
      {},
      { 'x-ratelimit-remaining': '12' },
      { 'x-ratelimit-remaining': 'lots', 'x-ratelimit-reset': '20' },
      { 'x-ratelimit-remaining': '-1', 'x-ratelimit-reset': '20' },
      { 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': String(2 * 3600) },
      { ratelimit: 'nonsense' },
    ])
      expect(readRateLimit(headers, NOW), JSON.stringify(headers)).toBeUndefined();
  });

  it('takes a number only whole: digits, a fraction, spaces around; nothing before or after', () => {
    const read = (remaining: string, reset = '20') =>
      readRateLimit({ 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset': reset }, NOW)?.remaining;
    expect(read(' 12 ')).toBe(12);
    expect(read('12.5')).toBe(12);
    expect(read('12.25')).toBe(12);
    for (const text of ['5x', 'x5', '5 5', '1.a', '1.', '.5', '1.5.5', '1e3'])
      expect(read(text), text).toBeUndefined();
    // A reset with a fraction is exact; in whole seconds it may be up to a second sooner.
    const exact = readRateLimit({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '2.5' }, NOW);
    expect(exact).toMatchObject({ resetAt: NOW + 2500, earliestResetAt: NOW + 2500 });
  });

  it('a draft field it cannot read leaves the X-RateLimit headers to say; the names in any case', () => {
    const headers = { ratelimit: 'policy-only', 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': '3' };
    expect(readRateLimit(headers, NOW)?.remaining).toBe(5);
    expect(readRateLimit({ ratelimit: 'Limit=100, Remaining=7, Reset=5' }, NOW)?.remaining).toBe(7);
  });

  it('a reset of 0 is now; up to an hour is a delay; from a year of seconds on, an epoch', () => {
    const reset = (value: string) =>
      readRateLimit({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': value }, NOW)?.resetAt;
    expect(reset('0')).toBe(NOW);
    expect(reset('3600')).toBe(NOW + 3_600_000);
    // Over the hour and under a year: a delay too long to believe (not an epoch in 1970).
    expect(reset('60000')).toBeUndefined();
    expect(reset(String(365 * 24 * 3600))).toBeUndefined();
  });

  it('a delay is counted from no earlier than the request left: the reset is bounded from both sides', () => {
    // Sent 400 ms before its answer came: "3 s" was said somewhere between the two.
    const hint = readRateLimit({ 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '3' }, NOW, NOW - 400);
    expect(hint).toEqual({
      remaining: 9,
      resetAt: NOW + 3000,
      earliestResetAt: NOW - 400 + 2000,
      sentAt: NOW - 400,
    });
  });
});

describe('HeaderBudget: what is left of the count', () => {
  const hint = (remaining: number, sentAt: number) => ({
    remaining,
    sentAt,
    resetAt: NOW + 2000,
    earliestResetAt: NOW + 1000,
  });

  it('once every request is back, what the service last said, even when they reached it out of order', () => {
    // Three left. A leaves, then B; the service counts B first, then A. A's answer comes first: "1
    // left", with B still on its way, so 0 by the estimate; then B's: "2 left" (counted earlier).
    const budget = new HeaderBudget();
    budget.sent(NOW, 1);
    budget.sent(NOW + 1, 1);
    budget.update(hint(1, NOW));
    budget.ended(NOW);
    budget.update(hint(2, NOW + 1));
    expect(budget.blockedUntil(NOW + 100)).toBe(NOW + 2000);
    // B back, nothing in flight: one is left, as the service said last.
    budget.ended(NOW + 1);
    expect(budget.blockedUntil(NOW + 101)).toBeUndefined();
    budget.sent(NOW + 102, 1);
    expect(budget.blockedUntil(NOW + 103)).toBe(NOW + 2000);
  });

  it('a request told back a moment after the pace was told it left is still found', () => {
    // As above, but each sender read the clock a millisecond after the pace was told (bulk's turns):
    // A told at NOW, sent at NOW + 1; B told at NOW + 5, sent at NOW + 6.
    const budget = new HeaderBudget();
    budget.sent(NOW, 1);
    budget.sent(NOW + 5, 1);
    budget.update(hint(1, NOW + 1));
    budget.ended(NOW + 1);
    budget.update(hint(2, NOW + 6));
    expect(budget.blockedUntil(NOW + 100)).toBe(NOW + 2000);
    // Both found when back: one is left, as the service said last.
    budget.ended(NOW + 6);
    expect(budget.blockedUntil(NOW + 101)).toBeUndefined();
  });

  it('a late answer of an earlier window changes nothing in this one', () => {
    const budget = new HeaderBudget();
    budget.update(hint(5, NOW));
    // An answer of the window before, arriving now: its reset ends before this window can begin.
    budget.update({ remaining: 0, sentAt: NOW - 900, resetAt: NOW + 500, earliestResetAt: NOW - 500 });
    expect(budget.blockedUntil(NOW + 10)).toBeUndefined();
  });

  it("answers of one window narrow its reset: an answer ending before the narrowed start is the last window's", () => {
    const budget = new HeaderBudget();
    budget.update(hint(5, NOW));
    // Counted later: the reset is between NOW + 1500 and NOW + 2000.
    budget.update({ remaining: 5, sentAt: NOW + 500, resetAt: NOW + 2500, earliestResetAt: NOW + 1500 });
    // Ends at NOW + 1200: before this window can reset, so not of this window (its 0 is not this one's).
    budget.update({ remaining: 0, sentAt: NOW - 800, resetAt: NOW + 1200, earliestResetAt: NOW + 200 });
    expect(budget.blockedUntil(NOW + 10)).toBeUndefined();
  });

  it('counts as sent after an answer the requests told after it, and finds a request back by the last turn at or before it', () => {
    const budget = new HeaderBudget();
    budget.sent(NOW + 100, 1);
    budget.sent(NOW + 200, 1);
    // Sent at NOW + 150 (its turn at NOW + 100): the one told at NOW + 100 is back, not the later one.
    budget.ended(NOW + 150);
    // An answer of a request sent at NOW + 120 said 1 left: the one told at NOW + 200 is on its way.
    budget.update(hint(1, NOW + 120));
    expect(budget.blockedUntil(NOW + 300)).toBe(NOW + 2000);
  });

  it('a request told back before any in flight was told is not one of them', () => {
    const budget = new HeaderBudget();
    budget.sent(NOW + 100, 1);
    budget.ended(NOW + 50);
    // The request told at NOW + 100 is still on its way: of the 1 left, none for a new one.
    budget.update(hint(1, NOW + 60));
    expect(budget.blockedUntil(NOW + 70)).toBe(NOW + 2000);
  });

  it('keeps the send times of at most 4,096 requests in flight (a caller that never tells of an end)', () => {
    const budget = new HeaderBudget();
    budget.sent(NOW + 1, 5000);
    // Of 10,000 left when an earlier request was counted, 4,096 still taken for on their way.
    budget.update(hint(10_000, NOW));
    budget.sent(NOW + 2, 5903);
    expect(budget.blockedUntil(NOW + 3)).toBeUndefined();
    budget.sent(NOW + 4, 1);
    expect(budget.blockedUntil(NOW + 5)).toBe(NOW + 2000);
  });
});
