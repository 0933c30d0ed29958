// Which outcomes cost a transaction, from one table. The provider bills answered requests; a
// related provider states that no-result queries count too, so 204 is treated as billable (and
// cached like any answer). 440 is an answer to a search that was run, so it counts as well. A 200
// is paid whatever its body: readable, or cut, too big or not JSON (an `unreadable` outcome).
// Errors before the operation ran (3xx, 400, 401, 429, 5xx, network) cost nothing.
import type { Outcome } from './response.js';

const PAID_STATUSES = {
  200: 'an answer: a record, or a body that could not be read',
  204: 'no match: the search ran',
  440: 'too many results: the search ran',
} as const;

/** The HTTP statuses that cost a transaction. */
export const BILLABLE_STATUSES: readonly number[] = Object.keys(PAID_STATUSES).map(Number);

/** Whether the outcome cost a transaction: record, no-match, unreadable, and 440 errors. */
export function isPaid(outcome: Outcome): boolean {
  const status = outcome.kind === 'error' ? outcome.error.status : outcome.status;
  // An error with status 200 is a bad-response stored by an earlier version: paid as well.
  return status !== undefined && BILLABLE_STATUSES.includes(status);
}

/** The earlier name of isPaid, kept for the clients that still call it. */
export const isBillable: (outcome: Outcome) => boolean = isPaid;
