// A bulk run's requests through a shared answer store (store/store-front.ts: PostgreSQL, shared by
// every client and instance of a team): DESIGN's purchase path across processes. The local journal
// stays the run's fast cache and its resume journal; each request it does not answer is claimed in
// the shared store before it is sent:
// - an answer someone else kept (another client, another instance, bought while we waited on their
//   claim): used free, journaled locally, counted as from the store;
// - the right to buy: one transaction reserved against the store's caps first. Refused (the store's
//   budget is spent): the claim is released and nothing is sent; from then on the run asks the
//   store for nothing more to buy (its rows say "budget"), and it ends stopped for 'budget'. The
//   requests that hold a reservation already are still sent: a cap of 5 spends 5.
//   Granted: sent; a paid answer is put to the store (and the journal) before its row counts. A
//   request that was not paid gives its transaction back and releases its claim; one that may have
//   been paid (sent whole, no answer; abandoned on the wire) keeps its transaction, as the local
//   budget does, and releases its claim so that the next caller may buy it.
// After the run stopped sending (not interrupted) or the store's budget refused, answers already in
// the store are still taken, free, by a lookup that claims nothing. A store that fails (unreachable, a query refused) stops the
// run sending, as a journal that cannot be written does: going on without it could buy what another
// client is buying at that moment.
import type { Outcome } from '@enrich/core';
import type { Sender, SendResult } from '../sending/sender.js';
import { type StoreFront, StoreUnavailable } from './store-front.js';

/** What the store says about one request before it is sent. */
export type StoreClaim =
  /** Kept by someone else: use it. */
  | { readonly kind: 'answer'; readonly outcome: Outcome }
  /** Ours to buy: claimed, and one transaction reserved. */
  | { readonly kind: 'buy' }
  /** The store's budget is spent: not sent, the row says why (`reason`). */
  | { readonly kind: 'refused'; readonly reason: string }
  /** Not to be sent (the run stopped, the store refused or failed): the sender says why. */
  | { readonly kind: 'skip' };

/** Why the run stopped when the store's budget refused a transaction (rows say "not sent: " first). */
export function storeBudgetSpent(where: string): string {
  return `budget: the shared answer store (${where}) refused the transaction: its budget of transactions is spent`;
}

export class StoreClaims {
  /** The store refused a transaction: its budget is spent (the run ends stopped for 'budget'). */
  refused = false;
  /** Why the store failed, if it did (the run stopped sending). */
  failure: string | undefined;
  private readonly stopClaims = new AbortController();

  constructor(
    private readonly front: StoreFront,
    /** The operation's CLI spelling, as the store's spend table names it. */
    private readonly operation: string,
    private readonly sender: Sender,
  ) {}

  get where(): string {
    return this.front.where;
  }

  /** The run is ending (Ctrl-C, a failure): claims waiting for another holder end at once. */
  stop(): void {
    this.stopClaims.abort();
  }

  /** What to do with a request the journal did not answer: use the store's answer, buy it, or not send it. */
  async claim(key: string): Promise<StoreClaim> {
    const stopped = this.sender.stopReason;
    if (stopped === 'interrupted' || this.stopClaims.signal.aborted) return SKIP;
    let claimed = false;
    try {
      // Stopped sending (a budget, the allowance, a refused key): what the store holds is still free.
      if (stopped || this.refused) return this.found(await this.front.getMany([key]), key);
      const claim = await this.front.claim(key, { signal: this.stopClaims.signal });
      if (claim.kind === 'answer') return claim;
      claimed = true;
      // The run stopped sending while this claim waited: let the next caller have it.
      if (this.sender.stopReason) {
        claimed = false;
        await this.front.release(key);
        return SKIP;
      }
      const granted = await this.front.reserve({ operation: this.operation, count: 1 });
      if (granted >= 1) return BUY;
      claimed = false;
      await this.front.release(key);
      this.refused = true;
      return this.refusal();
    } catch (error) {
      if (claimed) this.front.release(key).catch(() => undefined);
      // Ctrl-C ended a claim that waited for another holder: the sender says "interrupted".
      if (!this.stopClaims.signal.aborted) this.fail(error);
      return SKIP;
    }
  }

  /**
   * Keeps a paid answer in the store: started as the answer arrives (beside the journal's line),
   * awaited by settle() before the row counts.
   */
  put(key: string, outcome: Outcome): Promise<void> {
    const kept = this.front.put(key, outcome);
    // Awaited by settle(); a rejection is not left unhandled meanwhile.
    kept.catch(() => undefined);
    return kept;
  }

  /**
   * After a bought request came back from the sender: its paid answer durably in the store (`kept`,
   * from put), or its transaction given back (unless it may have been paid) and its claim released.
   */
  async settle(key: string, sent: SendResult, kept: Promise<void> | undefined): Promise<void> {
    try {
      if (kept) {
        await kept;
        return;
      }
      if (!mayHaveBeenPaid(sent)) await this.front.refund({ operation: this.operation, count: 1 });
      await this.front.release(key);
    } catch (error) {
      this.fail(error);
    }
  }

  private found(answers: Map<string, Outcome>, key: string): StoreClaim {
    const outcome = answers.get(key);
    if (outcome) return { kind: 'answer', outcome };
    return this.refused && !this.sender.stopReason ? this.refusal() : SKIP;
  }

  private refusal(): StoreClaim {
    return { kind: 'refused', reason: `not sent: ${storeBudgetSpent(this.front.where)}` };
  }

  private fail(error: unknown): void {
    // The store's own errors say where it is (never the password); others are named here.
    const message =
      error instanceof StoreUnavailable
        ? error.message
        : `${this.front.where}: ${error instanceof Error ? error.message : String(error)}`;
    this.failure ??= `the shared answer store failed: ${message}`;
    this.sender.halt(this.failure);
  }
}

const SKIP: StoreClaim = { kind: 'skip' };
const BUY: StoreClaim = { kind: 'buy' };

/** Sent whole and never answered, or abandoned on the wire: the service may have billed it. */
function mayHaveBeenPaid(sent: SendResult): boolean {
  if (!sent.sent) return sent.mayHaveBeenPaid === true;
  return sent.outcome.kind === 'error' && sent.outcome.error.code === 'unanswered';
}
