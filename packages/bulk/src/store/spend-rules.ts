// What a spend request must be, and the UTC month it counts in: decided once for both backends.
import type { SpendRequest } from './store-front.js';

/** `2026-11`: the UTC month of an instant. */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

const MAX_QUERY_ID = 256;

/** Throws a RangeError naming the field and the rule; nothing is reserved then. */
export function checkSpendRequest(request: SpendRequest): void {
  const { operation, count, query } = request;
  if (typeof operation !== 'string' || operation === '') {
    throw new RangeError('operation must be an operation name such as phone-lookup');
  }
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new RangeError(`count must be a whole number, 0 or more; got ${String(count)}`);
  }
  if (query === undefined) return;
  if (typeof query.id !== 'string' || query.id === '' || query.id.length > MAX_QUERY_ID) {
    throw new RangeError(`query.id must be text of 1 to ${MAX_QUERY_ID} characters`);
  }
  if (!Number.isSafeInteger(query.limit) || query.limit < 0) {
    throw new RangeError(`query.limit must be a whole number, 0 or more; got ${String(query.limit)}`);
  }
}

/** The environment variable every client reads the store-wide monthly cap from. */
export const MAX_PER_MONTH_ENV = 'ENRICH_MAX_TRANSACTIONS_PER_MONTH';

const CAP_RULE = 'must be a whole number of transactions, 0 or more';

/** Checks the store-wide monthly cap an opener gives. */
export function checkMonthlyCap(cap: number | undefined): void {
  if (cap === undefined) return;
  if (!Number.isSafeInteger(cap) || cap < 0) {
    throw new RangeError(`maxTransactionsPerMonth ${CAP_RULE}; got ${String(cap)}`);
  }
}

/**
 * The monthly cap as a person typed it (`--max-transactions-per-month`, or MAX_PER_MONTH_ENV):
 * undefined when unset or blank; else the number, or a RangeError naming `source` and the rule.
 */
export function parseMonthlyCap(
  text: string | undefined,
  source: string = MAX_PER_MONTH_ENV,
): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text.trim());
  if (!/^[0-9]+$/.test(text.trim()) || !Number.isSafeInteger(value)) {
    throw new RangeError(`${source} ${CAP_RULE}; got ${JSON.stringify(text)}`);
  }
  return value;
}

/** How many of `count` fit under both caps, given what each has spent. */
export function granted(count: number, capLeft: number, queryLeft: number): number {
  return Math.max(0, Math.min(count, capLeft, queryLeft));
}
