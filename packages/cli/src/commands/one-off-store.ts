// A one-off call through the shared answer store (--store / ENRICH_STORE): the purchase path's steps
// across processes, as a bulk run takes them (bulk's store-claims.ts). The answer another client
// kept is printed free; else this command claims the question (another client asking it meanwhile
// waits for this answer), reserves one transaction against the store's cap (refused: nothing is
// sent), calls, and keeps the paid answer in the store; a call that was not paid gives its
// transaction back and releases the claim.
import type { StoreFront } from '@enrich/bulk';
import { isPaid, type Operation, type Outcome } from '@enrich/core';
import { CommandError, EXIT } from '../exit-codes.js';

export type StoreBought =
  | {
      readonly kind: 'answer';
      readonly outcome: Outcome;
      readonly fromStore: boolean;
      /** Where the store is (no password), to say where a free answer came from. */
      readonly where: string;
    }
  /** The store's budget refused the transaction: nothing was sent. */
  | { readonly kind: 'refused'; readonly message: string }
  /** A paid answer the store could not keep (printed all the same). */
  | { readonly kind: 'unkept'; readonly outcome: Outcome; readonly message: string };

export async function buyThroughStore(
  store: StoreFront,
  op: Operation,
  key: string,
  call: () => Promise<Outcome>,
): Promise<StoreBought> {
  const claim = await failing(() => store.claim(key));
  if (claim.kind === 'answer')
    return { kind: 'answer', outcome: claim.outcome, fromStore: true, where: store.where };
  const spend = { operation: op.id, count: 1 };
  const granted = await failing(() => store.reserve(spend)).catch(async (error) => {
    await store.release(key).catch(() => undefined);
    throw error;
  });
  if (granted < 1) {
    await failing(() => store.release(key));
    return {
      kind: 'refused',
      message: `Not sent: budget: the shared answer store (${store.where}) refused the transaction: its budget (--max-transactions-per-month) is spent. No transaction was spent.`,
    };
  }
  let outcome: Outcome | undefined;
  try {
    outcome = await call();
  } finally {
    // Not paid (or no outcome at all): the transaction goes back, unless it may have been paid.
    if (outcome === undefined || !isPaid(outcome)) {
      const unanswered = outcome?.kind === 'error' && outcome.error.code === 'unanswered';
      if (!unanswered) await failing(() => store.refund(spend));
      await failing(() => store.release(key));
    }
  }
  const bought = { kind: 'answer', outcome, fromStore: false, where: store.where } as const;
  if (!isPaid(outcome)) return bought;
  try {
    await store.put(key, outcome);
    return bought;
  } catch (error) {
    return {
      kind: 'unkept',
      outcome,
      message: `This paid answer could not be kept in the shared answer store (${(error as Error).message}); another client may buy it again.`,
    };
  }
}

/** A store that fails before the call stops the command: nothing was sent. */
async function failing<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw new CommandError(
      `the shared answer store failed: ${(error as Error).message}. Nothing more was sent.`,
      EXIT.storage,
    );
  }
}
