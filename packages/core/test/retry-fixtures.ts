// Shared by the retry tests: a small policy, and errors of a given code.
import { type CallError, callError, type ErrorCode, type RetryPolicy } from '../src/index.js';

export const POLICY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxTotalMs: 120_000,
};
export const err = (code: ErrorCode, extra: Partial<CallError> = {}) => callError(code, code, extra);
