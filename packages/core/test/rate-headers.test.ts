import { describe, expect, it } from 'vitest';
import { readRateLimit } from '../src/index.js';

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
