// Which outcomes cost a transaction, read from the status table (vocabulary/status-codes.ts),
// where the reasons are given: a 200 (readable or not), a 204 and a 440 are paid.
import type { Outcome } from './response.js';
import { PAID_STATUSES } from './vocabulary/status-codes.js';

/** Whether the outcome cost a transaction: record, no-match, unreadable, and 440 errors. */
export function isPaid(outcome: Outcome): boolean {
  const status = outcome.kind === 'error' ? outcome.error.status : outcome.status;
  return status !== undefined && PAID_STATUSES.includes(status);
}
