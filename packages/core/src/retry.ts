// When and how long to wait before trying a failed call again, as pure functions: no timers here,
// so Node drives them with real sleeps and Apps Script with Utilities.sleep between fetchAll rounds.
// Retried: 429 (allowance), 5xx and network failures before the request was sent whole (refused,
// DNS, a reset while connecting). Never retried: 400, 401, 440, a redirect, an unreadable 200 (the
// transaction was spent), a request sent whole that got no answer (`unanswered`: the deadline
// passed or the connection was lost while waiting; the service may have billed it), invalid input,
// and of course 200 and 204.
import type { CallError, ErrorCode } from './errors.js';
import { STATUS_TABLE } from './vocabulary/status-codes.js';

export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  readonly maxAttempts: number;
  /** Delay before the second attempt, doubled for each one after, before jitter. */
  readonly baseDelayMs: number;
  /** No computed (backoff) wait is longer than this. */
  readonly maxDelayMs: number;
  /**
   * No retry is started later than this after the first attempt began (the wait included). How
   * long the attempt itself takes is the transport's timeout to bound.
   */
  readonly maxTotalMs: number;
  /**
   * The longest Retry-After that is honoured by waiting (default 60 s). A server asking for more
   * is not waited for: the run stops and says when to resume (a Retry-After of 99999 s would
   * otherwise hold a run for 28 hours).
   */
  readonly maxRetryAfterMs?: number;
}

export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxTotalMs: 120_000,
  maxRetryAfterMs: DEFAULT_MAX_RETRY_AFTER_MS,
};

// The error codes of the statuses the table marks retryable (429, 5xx), and network failures,
// which have no status. Not `unanswered`: asking again could buy the same answer twice.
const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  ...Object.values(STATUS_TABLE).flatMap((info) => (info.retryable && info.code ? [info.code] : [])),
  'network',
]);

/** Whether asking again may help. */
export function isRetryable(error: CallError): boolean {
  return RETRYABLE_CODES.has(error.code);
}

/**
 * The wait before attempt `attempt + 1`, after attempt `attempt` (1-based) failed with `error`.
 * Jitter: a random point between half and all of the exponential step, so that many clients
 * failing together do not retry together. A Retry-After from the server wins over the formula,
 * up to the policy's maxRetryAfterMs (decideRetry stops instead of waiting longer).
 */
export function retryDelayMs(
  attempt: number,
  error: CallError,
  policy: RetryPolicy,
  random: () => number,
): number {
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, maxRetryAfterOf(policy));
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + (step / 2) * random());
}

/**
 * The server asked for a longer wait than the policy allows: stop, and resume at `resumeAt`. Decided
 * by `decideRetry` alone; every client (a single call, a bulk run) is told this, never works it out.
 */
export interface WaitTooLong {
  readonly retryAfterMs: number;
  /** Epoch milliseconds from which the server said it would answer again. */
  readonly resumeAt: number;
  /** The longest wait the policy honours, which `retryAfterMs` exceeds (for the message). */
  readonly maxRetryAfterMs: number;
}

export type RetryDecision =
  | { readonly retry: true; readonly delayMs: number }
  | { readonly retry: false; readonly waitTooLong?: WaitTooLong };

/**
 * Whether to try again after attempt `attempt` failed, `elapsedMs` after the first one began.
 * `nowMs` (epoch ms, default the system clock) dates `resumeAt` when the wait is too long.
 */
export function decideRetry(
  attempt: number,
  elapsedMs: number,
  error: CallError,
  policy: RetryPolicy,
  random: () => number,
  nowMs: number = Date.now(),
): RetryDecision {
  if (!isRetryable(error)) return { retry: false };
  const asked = error.retryAfterMs;
  const maxRetryAfterMs = maxRetryAfterOf(policy);
  if (asked !== undefined && asked > maxRetryAfterMs) {
    return { retry: false, waitTooLong: { retryAfterMs: asked, resumeAt: nowMs + asked, maxRetryAfterMs } };
  }
  if (attempt >= policy.maxAttempts) return { retry: false };
  const delayMs = retryDelayMs(attempt, error, policy, random);
  if (elapsedMs + delayMs > policy.maxTotalMs) return { retry: false };
  return { retry: true, delayMs };
}

function maxRetryAfterOf(policy: RetryPolicy): number {
  return policy.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
// The three date forms HTTP allows (RFC 9110 §5.6.7). Each pattern is anchored and has no nested
// or adjacent overlapping repetition, so it runs in linear time whatever the header holds.
const IMF_FIXDATE = /^[A-Za-z]{3}, (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC_850 = /^[A-Za-z]{6,9}, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME = /^[A-Za-z]{3} ([A-Za-z]{3}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;
const SECONDS = /^\d{1,10}(\.\d{1,3})?$/;

/**
 * Retry-After in milliseconds from now: delay-seconds ("120", also "1.5" as some servers send) or
 * an HTTP date, which needs `nowMs` (epoch ms; without it a date is not understood). A date in the
 * past means "now" (0). Anything else, or a header longer than any valid one, is no hint.
 */
export function parseRetryAfter(value: string | undefined, nowMs?: number): number | undefined {
  if (value === undefined || value.length > 64) return undefined;
  const trimmed = value.trim();
  if (SECONDS.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  if (nowMs === undefined) return undefined;
  const at = parseHttpDate(trimmed);
  if (at === undefined) return undefined;
  return Math.max(0, at - nowMs);
}

/** An HTTP date as epoch milliseconds, or undefined. Date.parse accepts too much to rely on. */
export function parseHttpDate(text: string): number | undefined {
  const parts = dateParts(text);
  if (!parts) return undefined;
  const { day, month, year, h, min, s } = parts;
  const monthIndex = MONTHS.indexOf(month.toLowerCase());
  if (monthIndex < 0 || day < 1 || day > 31 || h > 23 || min > 59 || s > 60) return undefined;
  return Date.UTC(year, monthIndex, day, h, min, s);
}

interface DateParts {
  readonly day: number;
  readonly month: string;
  readonly year: number;
  readonly h: number;
  readonly min: number;
  readonly s: number;
}

function dateParts(text: string): DateParts | undefined {
  const imf = IMF_FIXDATE.exec(text);
  if (imf) return partsOf(imf[1], imf[2], Number(imf[3]), imf[4], imf[5], imf[6]);
  const rfc850 = RFC_850.exec(text);
  if (rfc850) {
    // Two-digit years: read as this century below 70, as RFC 9110's "50 years ahead" rule gives today.
    const yy = Number(rfc850[3]);
    return partsOf(rfc850[1], rfc850[2], yy < 70 ? 2000 + yy : 1900 + yy, rfc850[4], rfc850[5], rfc850[6]);
  }
  const asc = ASCTIME.exec(text);
  if (asc) return partsOf(asc[2], asc[1], Number(asc[6]), asc[3], asc[4], asc[5]);
  return undefined;
}

function partsOf(
  day: string | undefined,
  month: string | undefined,
  year: number,
  h: string | undefined,
  min: string | undefined,
  s: string | undefined,
): DateParts {
  return { day: Number(day), month: month ?? '', year, h: Number(h), min: Number(min), s: Number(s) };
}
