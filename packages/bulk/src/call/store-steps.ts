// One question's steps in the team's shared answer store (store/store-front.ts), before and after it
// is sent (one-call.ts): claimed, so that another process asking it at this moment waits for this
// answer instead of buying it again, with one transaction reserved against the store's cap; then the
// paid answer kept, or (not paid) the transaction given back and the claim released. A bulk run's
// requests take the same steps in store/store-claims.ts, many at a time.
import { isPaid, type Outcome } from '@enrich/core';
import type { SpendRequest, StoreFront } from '../store/store-front.js';

/** What the store says about one question before it is sent. */
export type StoreStep =
  /** Kept by someone else (or bought while this waited on their claim): free. */
  | { readonly kind: 'answer'; readonly outcome: Outcome }
  /** Claimed, and one transaction reserved: this call buys it. */
  | { readonly kind: 'buy' }
  /** The store's cap is spent: the claim released, nothing to send. */
  | { readonly kind: 'refused' };

/** Claims the question and reserves one transaction; throws what the store throws (claim released). */
export async function claimToBuy(
  front: StoreFront,
  key: string,
  spend: SpendRequest,
  signal: AbortSignal | undefined,
): Promise<StoreStep> {
  const claim = await front.claim(key, signal ? { signal } : {});
  if (claim.kind === 'answer') return claim;
  let granted: number;
  try {
    granted = await front.reserve(spend);
  } catch (error) {
    await front.release(key).catch(() => undefined);
    throw error;
  }
  if (granted >= 1) return { kind: 'buy' };
  await front.release(key);
  return { kind: 'refused' };
}

/**
 * After a bought question: its paid answer kept in the store (those waiting on the claim get it);
 * else its transaction given back, unless it may have been paid (sent whole, never answered), and
 * its claim released. Throws what the store throws.
 */
export async function settleInStore(
  front: StoreFront,
  key: string,
  spend: SpendRequest,
  outcome: Outcome | undefined,
): Promise<void> {
  if (outcome !== undefined && isPaid(outcome)) {
    await front.put(key, outcome);
    return;
  }
  const unanswered = outcome?.kind === 'error' && outcome.error.code === 'unanswered';
  if (!unanswered) await front.refund(spend);
  await front.release(key);
}
