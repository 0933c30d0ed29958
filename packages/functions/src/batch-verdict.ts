// What a batch answers as a whole, chosen for the engines' retry rules (BigQuery retries 408, 429,
// 500, 503 and 504; Snowflake 429, 5xx and network errors; a 400 is shown to the user and not
// retried):
// - 200 whenever every row has its answer: a row's own failure (invalid, no match, an error that a
//   retry of the batch would not mend, a `budget` row) is in its reply;
// - 503 only when the service itself is failing and a retry of the batch would help (a 5xx, the
//   allowance's 429 or a network failure after core's retries; the answer store unreachable):
//   everything already bought is in the store, so the engine's retry is free for it;
// - 400 with a message for what a retry cannot mend: the key refused, a wait longer than a retry
//   would make (the allowance used up for hours), a budget spent before anything of this batch
//   could be bought (the query is stopped there rather than sent on, batch after batch, for
//   nothing). A budget spent part-way through a batch answers 200, its last rows `budget`.
import { isRetryable, type Operation, type Outcome } from '@enrich/core';
import type { Reply } from './replies.js';

/** A budget of one query: its id in the store, its limit, and how the caller set it (for messages). */
export interface BatchBudget {
  readonly id: string;
  readonly limit: number;
  readonly said: string;
}

/** What became of one distinct request of the batch. */
export type Fate =
  | {
      readonly kind: 'outcome';
      readonly outcome: Outcome;
      readonly fromStore?: boolean;
      readonly bought?: boolean;
      /** Paid and kept in memory only: the store could not be written (why). */
      readonly unsaved?: string;
      /** The service asked for a longer wait than a retry makes (ms). */
      readonly retryAfterMs?: number;
    }
  | { readonly kind: 'budget' }
  | { readonly kind: 'store-down'; readonly message: string };

/** The batch in numbers, for the log line (no row data). */
export interface Tally {
  readonly rows: number;
  readonly distinct: number;
  readonly fromStore: number;
  readonly bought: number;
  readonly invalid: number;
  readonly budget: number;
  readonly errors: number;
}

export type BatchAnswer =
  | { readonly kind: 'answered'; readonly replies: readonly Reply[]; readonly tally: Tally }
  | {
      readonly kind: 'retry';
      readonly message: string;
      readonly retryAfterSeconds?: number;
      readonly tally: Tally;
    }
  | { readonly kind: 'refused'; readonly message: string; readonly tally: Tally };

export interface Limits {
  readonly budget: BatchBudget | undefined;
  readonly maxTransactionsPerMonth: number | undefined;
}

const KEPT = 'What was bought is kept in the answer store, so asking again costs nothing for it.';

function tallyOf(replies: readonly Reply[], fates: ReadonlyMap<string, Fate>): Tally {
  let fromStore = 0;
  let bought = 0;
  let budget = 0;
  let errors = 0;
  for (const fate of fates.values()) {
    if (fate.kind === 'budget') budget++;
    else if (fate.kind === 'store-down') errors++;
    else {
      if (fate.fromStore) fromStore++;
      if (fate.bought) bought++;
      if (fate.outcome.kind === 'error' && fate.outcome.error.code !== 'too-many-results') errors++;
    }
  }
  const invalid = replies.filter((reply) => String(reply.status).startsWith('invalid')).length;
  return { rows: replies.length, distinct: fates.size, fromStore, bought, invalid, budget, errors };
}

function errorsOf(fates: ReadonlyMap<string, Fate>) {
  return [...fates.values()].flatMap((fate) =>
    fate.kind === 'outcome' && fate.outcome.kind === 'error'
      ? [{ error: fate.outcome.error, waitMs: fate.retryAfterMs }]
      : [],
  );
}

export function verdict(
  op: Operation,
  replies: readonly Reply[],
  fates: ReadonlyMap<string, Fate>,
  limits: Limits,
): BatchAnswer {
  const tally = tallyOf(replies, fates);
  const down = [...fates.values()].find((fate) => fate.kind === 'store-down');
  if (down?.kind === 'store-down')
    return { kind: 'retry', message: `The answer store is unavailable (${down.message}). ${KEPT}`, tally };
  const errors = errorsOf(fates);
  const tooLong = errors.find((e) => e.waitMs !== undefined);
  if (tooLong?.waitMs !== undefined) {
    const at = new Date(Date.now() + tooLong.waitMs).toISOString().slice(0, 16).replace('T', ' ');
    return {
      kind: 'refused',
      message: `${op.title}: the service asks to wait until ${at} UTC (${tooLong.error.message}). ${KEPT}`,
      tally,
    };
  }
  const failing = errors.filter((e) => isRetryable(e.error));
  if (failing.length > 0) {
    const waits = failing.flatMap((e) => (e.error.retryAfterMs === undefined ? [] : [e.error.retryAfterMs]));
    return {
      kind: 'retry',
      message: `${op.title}: ${failing.length} of ${tally.distinct} requests could not be answered now (${failing[0]?.error.message}). ${KEPT}`,
      ...(waits.length > 0 ? { retryAfterSeconds: Math.ceil(Math.max(...waits) / 1000) } : {}),
      tally,
    };
  }
  const fatal = errors.find((e) => e.error.code === 'unauthorized' || e.error.code === 'config');
  if (fatal)
    return {
      kind: 'refused',
      message: `${op.title}: ${fatal.error.message} Nothing was spent for it.`,
      tally,
    };
  if (tally.budget > 0 && tally.bought === 0) return { kind: 'refused', message: budgetSpent(limits), tally };
  return { kind: 'answered', replies, tally };
}

function budgetSpent({ budget, maxTransactionsPerMonth }: Limits): string {
  const caps = [
    ...(budget ? [`this query's budget (${budget.said})`] : []),
    ...(maxTransactionsPerMonth === undefined
      ? []
      : [`the store's monthly cap (--max-transactions-per-month ${maxTransactionsPerMonth})`]),
  ];
  return `Budget spent: ${caps.join(' or ') || 'a cap'} allows no more transactions, so nothing more was sent. ${KEPT} Raise it and run the query again.`;
}
