// The retry policy as pure functions: which errors retry, how long to wait, and when to stop.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, decideRetry, isRetryable, retryDelayMs } from '../src/index.js';
import { err, POLICY } from './retry-fixtures.js';

describe('which errors retry', () => {
  it.each([
    ['allowance', true],
    ['server', true],
    ['network', true],
    ['bad-request', false],
    ['unauthorized', false],
    ['too-many-results', false],
    ['unexpected-status', false],
    ['bad-response', false],
    ['invalid-input', false],
    ['config', false],
  ] as const)('%s: %s', (code, retries) => {
    expect(isRetryable(err(code))).toBe(retries);
    expect(decideRetry(1, 0, err(code), POLICY, () => 0.5).retry).toBe(retries);
  });
});

describe('delay', () => {
  it('doubles with each attempt, jittered between half and all of the step', () => {
    expect(retryDelayMs(1, err('server'), POLICY, () => 0)).toBe(250);
    expect(retryDelayMs(1, err('server'), POLICY, () => 0.999999)).toBe(500);
    expect(retryDelayMs(2, err('server'), POLICY, () => 0)).toBe(500);
    expect(retryDelayMs(3, err('server'), POLICY, () => 0)).toBe(1000);
    expect(retryDelayMs(4, err('network'), POLICY, () => 0.5)).toBe(3000);
  });

  it('stays within [step/2, step] for any attempt and random draw, with step capped', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, r) => {
          const step = Math.min(POLICY.maxDelayMs, POLICY.baseDelayMs * 2 ** (n - 1));
          const delay = retryDelayMs(n, err('server'), POLICY, () => r);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(step / 2));
          expect(delay).toBeLessThanOrEqual(step);
        },
      ),
    );
  });

  it('uses Retry-After instead of the formula, honoured in full up to maxRetryAfterMs', () => {
    expect(retryDelayMs(1, err('allowance', { retryAfterMs: 7000 }), POLICY, () => 0)).toBe(7000);
    expect(retryDelayMs(4, err('allowance', { retryAfterMs: 0 }), POLICY, () => 1)).toBe(0);
    // Longer than the backoff cap but within the Retry-After cap (60 s by default): waited in full.
    expect(retryDelayMs(1, err('allowance', { retryAfterMs: 45_000 }), POLICY, () => 0)).toBe(45_000);
  });

  it('the default policy is bounded: 5 attempts within two minutes, Retry-After up to 60 s', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      maxAttempts: 5,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      maxTotalMs: 120_000,
      maxRetryAfterMs: 60_000,
    });
  });
});

describe('decideRetry', () => {
  it('stops at the attempt cap', () => {
    expect(decideRetry(4, 0, err('server'), POLICY, () => 0)).toEqual({ retry: true, delayMs: 2000 });
    expect(decideRetry(5, 0, err('server'), POLICY, () => 0)).toEqual({ retry: false });
  });

  it('stops when the wait would pass the total time cap', () => {
    expect(decideRetry(1, 119_750, err('server'), POLICY, () => 0)).toEqual({ retry: true, delayMs: 250 });
    expect(decideRetry(1, 119_751, err('server'), POLICY, () => 0)).toEqual({ retry: false });
    expect(decideRetry(1, 100_000, err('allowance', { retryAfterMs: 30_000 }), POLICY, () => 0)).toEqual({
      retry: false,
    });
  });
});
