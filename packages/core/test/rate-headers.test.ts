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
});
