// Every HTTP status the API description lists, in one table: the error code a client sees, the
// message for people, whether it costs a transaction, and whether it is worth asking again.
// Statuses the description does not list are classed by their range (statusInfo).
//
// Billing: the provider bills answered requests; a related provider states that no-result
// queries count too, so 204 is paid (and cached like any answer). 440 is an answer to a
// search that was run, so it counts as well. A 200 is paid whatever its body: readable, or cut,
// too big or not JSON. Errors before the operation ran (3xx, 400, 401, 429, 5xx) cost nothing.
// Retried: 429 and 5xx (network failures too, which have no status). Never 400, 401, 440, 3xx.
import type { ErrorCode } from '../errors.js';

export interface StatusInfo {
  /** The error a client reports; undefined for the statuses that carry an answer (200, 204). */
  readonly code: ErrorCode | undefined;
  readonly message: string;
  readonly paid: boolean;
  readonly retryable: boolean;
}

const SERVER_ERROR = (status: number): StatusInfo => ({
  code: 'server',
  message: `The service had an error (${status}). Try again; if it keeps failing, contact the provider.`,
  paid: false,
  retryable: true,
});

export const STATUS_TABLE: Readonly<Record<200 | 204 | 400 | 401 | 429 | 440 | 500, StatusInfo>> = {
  200: { code: undefined, message: 'Successful.', paid: true, retryable: false },
  204: { code: undefined, message: 'No records found.', paid: true, retryable: false },
  400: {
    code: 'bad-request',
    message: 'The service says a required field is missing or not valid (400). Check the input.',
    paid: false,
    retryable: false,
  },
  401: {
    code: 'unauthorized',
    message: 'The API key was refused (401). Check the key, or set a new one.',
    paid: false,
    retryable: false,
  },
  429: {
    code: 'allowance',
    message:
      'The transaction allowance for this API key is used up (429). Wait and try again, or ask the provider for a larger allowance.',
    paid: false,
    retryable: true,
  },
  440: {
    code: 'too-many-results',
    message: 'Too many records match (440). Give more details to narrow the search.',
    paid: true,
    retryable: false,
  },
  500: SERVER_ERROR(500),
};

/** The table's entry for a status, or the class of its range for one the description does not list. */
export function statusInfo(status: number): StatusInfo {
  const listed = (STATUS_TABLE as Readonly<Record<number, StatusInfo>>)[status];
  if (listed) return listed;
  if (status >= 500) return SERVER_ERROR(status);
  // A redirect's own message names where it pointed (response.ts); this one is the fallback.
  if (status >= 300 && status < 400) {
    return {
      code: 'redirect',
      message: `The service answered ${status} (a redirect).`,
      paid: false,
      retryable: false,
    };
  }
  return {
    code: 'unexpected-status',
    message: `The service answered with an unexpected status (${status}).`,
    paid: false,
    retryable: false,
  };
}

/** The statuses that cost a transaction. */
export const PAID_STATUSES: readonly number[] = Object.entries(STATUS_TABLE)
  .filter(([, info]) => info.paid)
  .map(([status]) => Number(status));
