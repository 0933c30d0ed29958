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
  | 'network'
  /** A 3xx: the service pointed elsewhere. Not followed, nothing resent, never retried. */
  | 'redirect'
  /**
   * A 200 whose body could not be read. Core no longer produces it (such an answer is now an
   * `unreadable` outcome); kept because answers stored by earlier versions carry it.
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

/** For code that prefers exceptions (the CLI, VS Code commands): carries the same data. */
export class EnrichError extends Error {
  readonly code: ErrorCode;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  constructor(error: CallError) {
    super(error.message);
    this.name = 'EnrichError';
    this.code = error.code;
    this.status = error.status;
    this.retryAfterMs = error.retryAfterMs;
  }
}

export function messageForStatus(status: number): string {
  switch (status) {
    case 400:
      return 'The service says a required field is missing or not valid (400). Check the input.';
    case 401:
      return 'The API key was refused (401). Check the key, or set a new one.';
    case 429:
      return 'The transaction allowance for this API key is used up (429). Wait and try again, or ask the provider for a larger allowance.';
    case 440:
      return 'Too many records match (440). Give more details to narrow the search.';
    case 500:
      return 'The service had an error (500). Try again; if it keeps failing, contact the provider.';
    default:
      return status >= 500
        ? `The service had an error (${status}). Try again; if it keeps failing, contact the provider.`
        : `The service answered with an unexpected status (${status}).`;
  }
}

export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'bad-request';
    case 401:
      return 'unauthorized';
    case 429:
      return 'allowance';
    case 440:
      return 'too-many-results';
    default:
      return status >= 500 ? 'server' : 'unexpected-status';
  }
}
