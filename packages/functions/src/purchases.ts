// One batch through the purchase path (DESIGN "One purchase path"), whichever engine sent it:
//   plan      each row: blank, invalid (core's validation: nothing sent, nothing spent) or a request
//             with core's request key; rows asking the same question are one request;
//   store     the kept answers of the whole batch in one read (getMany): free;
//   claim     each missing key in the shared store: one instance buys it, any other asking at the
//             same moment waits for that answer (or takes over a claim whose holder died);
//   ceiling   a reservation of one transaction against the store-wide monthly cap and the query's
//             budget, atomically across instances; refused, the row replies `budget`, nothing sent;
//   send      at the instance's pace, with core's retry policy (pacer.ts);
//   record    a paid answer in the store (put, durable before the batch answers) and the local
//             ledger; nothing paid: the claim released and the reservation refunded.
// What the batch then answers is decided in batch-verdict.ts.
import { type Refuse, type StoreFront, StoreUnavailable } from '@enrich/bulk';
import { type CleanInput, isPaid, type Operation, type Outcome, planRow } from '@enrich/core';
import { type BatchAnswer, type BatchBudget, type Fate, type Limits, verdict } from './batch-verdict.js';
import type { Pacer } from './pacer.js';
import { blankReply, budgetReply, errorReply, invalidReply, outcomeReply, type Reply } from './replies.js';
import type { FunctionsLedger } from './spend-ledger.js';
import type { Stores } from './stores.js';

export interface PurchaseDeps {
  readonly stores: Stores;
  readonly pacer: Pacer;
  readonly ledger: FunctionsLedger;
  readonly log: (text: string) => void;
  /** Aborted when the server stops: waits for other instances' claims end. */
  readonly stop: AbortSignal;
  /** People forgotten at their request (suppression.ts): their rows are invalid, nothing sent. */
  readonly refuse?: () => Promise<Refuse | undefined>;
}

type Plan = ReturnType<typeof planRow>;

/** A request of a person forgotten at their request becomes an invalid row: never sent, never kept. */
function unlessForgotten(op: Operation, plan: Plan, refuse: Refuse | undefined): Plan {
  if (refuse === undefined || plan.kind !== 'request' || !plan.input) return plan;
  const reason = refuse(op, plan.input);
  return reason === undefined ? plan : { kind: 'invalid', message: reason };
}

export class Purchases {
  constructor(private readonly deps: PurchaseDeps) {}

  /** Answers every row of a batch, in order; never rejects for a row's own failure. */
  async answer(op: Operation, rows: readonly unknown[], budget?: BatchBudget): Promise<BatchAnswer> {
    const refuse = await this.deps.refuse?.();
    const plans = rows.map((row) => unlessForgotten(op, planRow(op, row as Record<string, unknown>), refuse));
    const inputs = new Map<string, CleanInput>();
    for (const plan of plans) if (plan.kind === 'request' && plan.input) inputs.set(plan.key, plan.input);
    const store = this.deps.stores.for(op);
    const fates = new Map<string, Fate>();
    try {
      const kept = await store.getMany([...inputs.keys()]);
      for (const [key, outcome] of kept) fates.set(key, { kind: 'outcome', outcome, fromStore: true });
    } catch (error) {
      if (!(error instanceof StoreUnavailable)) throw error;
      return verdict(op, [], new Map([['', { kind: 'store-down', message: error.message }]]), {
        budget,
        maxTransactionsPerMonth: undefined,
      });
    }
    const missing = [...inputs].filter(([key]) => !fates.has(key));
    const bought = await Promise.all(missing.map(([key, input]) => this.buy(store, op, key, input, budget)));
    missing.forEach(([key], i) => {
      fates.set(key, bought[i] as Fate);
    });
    return verdict(
      op,
      plans.map((plan) => this.reply(op, plan, fates)),
      fates,
      await limits(store, budget, fates),
    );
  }

  private reply(op: Operation, plan: Plan, fates: ReadonlyMap<string, Fate>): Reply {
    if (plan.kind === 'empty') return blankReply(op);
    if (plan.kind === 'invalid') return invalidReply(plan.message);
    const fate = fates.get(plan.key);
    if (fate?.kind === 'outcome') return outcomeReply(fate.outcome);
    if (fate?.kind === 'budget') return budgetReply;
    return errorReply(`the answer store could not be reached: ${fate?.message ?? 'unknown'}`);
  }

  // Claim, ceiling, send, record: for one request key the store did not hold.
  private async buy(
    store: StoreFront,
    op: Operation,
    key: string,
    input: CleanInput,
    budget: BatchBudget | undefined,
  ): Promise<Fate> {
    let holding = false;
    try {
      const claim = await store.claim(key, { signal: this.deps.stop });
      if (claim.kind === 'answer') return { kind: 'outcome', outcome: claim.outcome, fromStore: true };
      holding = true;
      const spend = {
        operation: op.id,
        count: 1,
        ...(budget ? { query: { id: budget.id, limit: budget.limit } } : {}),
      };
      if ((await store.reserve(spend)) === 0) return { kind: 'budget' };
      const sent = await this.deps.pacer.send(op, input);
      const { outcome } = sent;
      if (isPaid(outcome)) {
        this.deps.ledger.paid(op);
        // The claim ends with the put, written or not: a put that failed leaves the answer held in
        // memory by the front (served from there), and the claim to expire in the database, so that
        // no other instance buys it again at once.
        holding = false;
        const unsaved = await this.keep(store, key, outcome);
        return { kind: 'outcome', outcome, bought: true, ...(unsaved ? { unsaved } : {}) };
      }
      // Sent whole and never answered: it may have been paid, so its place in the caps is kept.
      if (!mayHaveBeenPaid(outcome)) await this.refund(store, spend);
      return {
        kind: 'outcome',
        outcome,
        ...(sent.retryAfterMs === undefined ? {} : { retryAfterMs: sent.retryAfterMs }),
      };
    } catch (error) {
      if (error instanceof StoreUnavailable) return { kind: 'store-down', message: error.message };
      throw error;
    } finally {
      if (holding) await store.release(key).catch(() => undefined);
    }
  }

  /** Puts a paid answer; returns why it is not durable yet, or undefined when it is. */
  private async keep(store: StoreFront, key: string, outcome: Outcome): Promise<string | undefined> {
    try {
      await store.put(key, outcome);
      return undefined;
    } catch (error) {
      if (!(error instanceof StoreUnavailable)) throw error;
      this.deps.log(`a paid answer could not be written to the store yet (${error.message})`);
      return error.message;
    }
  }

  private async refund(store: StoreFront, spend: Parameters<StoreFront['refund']>[0]): Promise<void> {
    try {
      await store.refund(spend);
    } catch (error) {
      if (!(error instanceof StoreUnavailable)) throw error;
      // Counted as spent: a cap is never overshot because a refund was lost.
      this.deps.log(`a reservation could not be given back (${error.message}); it stays counted`);
    }
  }
}

/**
 * The caps, for the words of a refusal: the monthly cap is the store's own (every client's, the
 * lowest set; this instance may have been started without one), read only when a row met a cap.
 */
async function limits(
  store: StoreFront,
  budget: BatchBudget | undefined,
  fates: ReadonlyMap<string, Fate>,
): Promise<Limits> {
  if (![...fates.values()].some((fate) => fate.kind === 'budget')) {
    return { budget, maxTransactionsPerMonth: undefined };
  }
  const caps = await store.monthlyCaps().catch(() => []);
  const cap = caps.find((each) => each.namespace === store.namespace);
  return { budget, maxTransactionsPerMonth: cap?.maxTransactionsPerMonth };
}

function mayHaveBeenPaid(outcome: Outcome): boolean {
  return outcome.kind === 'error' && outcome.error.code === 'unanswered';
}
