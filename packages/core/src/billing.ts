// Which outcomes cost a transaction. The provider bills answered requests; a related provider
// states that no-result queries count too, so 204 is treated as billable (and cached like any
// answer). 440 is an answer to a search that was run, so it counts as well. Errors before the
// operation ran (400, 401, 429, 5xx, network) cost nothing.
import type { Outcome } from './response.js';

export const BILLABLE_STATUSES: readonly number[] = [200, 204, 440];

export function isBillable(outcome: Outcome): boolean {
  if (outcome.kind !== 'error') return true;
  return (
    outcome.error.status === 440 || (outcome.error.code === 'bad-response' && outcome.error.status === 200)
  );
}
