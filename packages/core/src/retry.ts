// When and how long to wait before trying a failed call again, as pure functions: no timers here,
// so Node drives them with real sleeps and Apps Script with Utilities.sleep between fetchAll rounds.
// Retried: 429 (allowance), 5xx and network failures. Never retried: 400, 401, 440, a bad body
// (the transaction was spent), invalid input, and of course 200 and 204.
import type { CallError } from './errors.js';

export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  readonly maxAttempts: number;
  /** Delay before the second attempt, doubled for each one after, before jitter. */
  readonly baseDelayMs: number;
  /** No single wait is longer than this, Retry-After included. */
  readonly maxDelayMs: number;
  /**
   * No retry is started later than this after the first attempt began (the wait included). How
   * long the attempt itself takes is the transport's timeout to bound.
   */
  readonly maxTotalMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxTotalMs: 120_000,
};

export function isRetryable(error: CallError): boolean {
  return error.code === 'allowance' || error.code === 'server' || error.code === 'network';
}

/**
 * The wait before attempt `attempt + 1`, after attempt `attempt` (1-based) failed with `error`.
 * Jitter: a random point between half and all of the exponential step, so that many clients
 * failing together do not retry together. A Retry-After from the server wins over the formula.
 */
export function retryDelayMs(
  attempt: number,
  error: CallError,
  policy: RetryPolicy,
  random: () => number,
): number {
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, policy.maxDelayMs);
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + (step / 2) * random());
}

export type RetryDecision = { readonly retry: true; readonly delayMs: number } | { readonly retry: false };

/** Whether to try again after attempt `attempt` failed, `elapsedMs` after the first one began. */
export function decideRetry(
  attempt: number,
  elapsedMs: number,
  error: CallError,
  policy: RetryPolicy,
  random: () => number,
): RetryDecision {
  if (!isRetryable(error) || attempt >= policy.maxAttempts) return { retry: false };
  const delayMs = retryDelayMs(attempt, error, policy, random);
  if (elapsedMs + delayMs > policy.maxTotalMs) return { retry: false };
  return { retry: true, delayMs };
}
