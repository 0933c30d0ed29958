// The error model: every way a call can fail, as plain data (so it crosses google.script.run and
// postMessage unchanged), with a message a non-programmer understands. Messages never hold the key.

export type ErrorCode =
  /** Caught locally before sending; cost nothing. */
  | 'invalid-input'
  /** No key, or a base URL that is not allowed; nothing was sent. */
  | 'config'
  | 'bad-request'
  | 'unauthorized'
  | 'allowance'
  | 'too-many-results'
  | 'server'
  | 'unexpected-status'
  /** The service could not be reached, or the connection failed before the request was sent whole. */
  | 'network'
  /**
   * The request was sent whole, but no answer came: the deadline passed, or the connection was lost
   * while waiting for it. The service may have run it and billed it, so it is never retried
   * automatically: asking again is the caller's choice (a paid answer is not bought twice because
   * it was slow).
   */
  | 'unanswered'
  /** A 3xx: the service pointed elsewhere. Not followed, nothing resent, never retried. */
  | 'redirect'
  /**
   * A 200 whose body could not be read, as the SDK's `call` reports it (the response reader's
   * `unreadable` outcome): paid, and never retried.
   */
  | 'bad-response';

export interface CallError {
  readonly code: ErrorCode;
  readonly message: string;
  /** The HTTP status, when a response arrived. */
  readonly status?: number;
  /** From a 429's or 5xx's Retry-After header (seconds or an HTTP date), in milliseconds. */
  readonly retryAfterMs?: number;
}

export function callError(code: ErrorCode, message: string, extra: Partial<CallError> = {}): CallError {
  return { ...extra, code, message };
}
