// One operation tool call, through the purchase path's steps (DESIGN "One purchase path"), each a
// named method:
//   check      the input (free: invalid input is refused before anything is sent);
//   fromStore  the answer cache (free);
//   share      a request already on its way in this process (core's SharedRequests): three calls
//              asked at once with three spellings of one phone buy it once;
//   fromShared the team's shared answer store, when there is one (--store; shared-stores.ts): an
//              answer another client bought is free;
//   ceiling    the budget, then the person's confirmation past --confirm-above;
//   claim      in the shared store: a question another process is buying at this moment is waited
//              for, not bought again; one transaction reserved against the store's cap;
//   send       core's call with its retry policy, cut short when the server stops;
//   record     the answer in the shared store and the cache and the spend in the ledger (or, not
//              paid, the store's transaction given back), before the result is returned.
import { cacheNamespace } from '@enrich/bulk';
import {
  abortableSleep,
  type CleanInput,
  callOperation,
  DEFAULT_RETRY_POLICY,
  inputText,
  isPaid,
  type Operation,
  type Outcome,
  requestKey,
  SharedRequests,
  type Transport,
  validate,
} from '@enrich/core';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AnswerCache, Kept } from './answer-cache.js';
import type { Budget } from './budget.js';
import type { Config } from './config.js';
import { ask } from './confirm.js';
import type { Connection } from './connection.js';
import type { Privacy } from './privacy.js';
import { errorResult, outcomeResult } from './reading.js';
import { claimToBuy, type SharedStores, settleInStore } from './shared-stores.js';
import type { SpendLedger } from './spend-ledger.js';

export interface PurchaseDeps {
  readonly server: Server;
  readonly config: Config;
  readonly connection: Connection;
  readonly cache: AnswerCache;
  readonly budget: Budget;
  readonly ledger: SpendLedger;
  readonly transport: Transport;
  /** The team's shared answer store, if one is configured. */
  readonly stores?: SharedStores | undefined;
  /** The suppression lists (privacy.ts): forgotten people are refused before anything else. */
  readonly privacy?: Privacy | undefined;
  readonly log: (text: string) => void;
  /** Aborted when the server stops: waits end at once, requests in flight are cut. */
  readonly stop: AbortSignal;
}

/** What one purchase came to: a refusal before sending, or an outcome and where it was kept. */
type Bought =
  | { readonly kind: 'refused'; readonly result: CallToolResult }
  | {
      readonly kind: 'answered';
      readonly outcome: Outcome;
      readonly paid: boolean;
      /** Found in the cache when its turn came (another process bought it meanwhile). */
      readonly fromCache?: boolean;
      /** Found in the shared store: bought by another client of the team. */
      readonly fromStore?: boolean;
      readonly kept?: Kept;
      /** Why the shared store could not keep this paid answer, if it could not. */
      readonly unkept?: string;
    };

export class Purchases {
  private readonly onTheirWay = new SharedRequests<Bought>();
  private dontAskAgain = false;

  constructor(private readonly deps: PurchaseDeps) {}

  async call(op: Operation, args: Record<string, unknown>): Promise<CallToolResult> {
    const checked = this.check(op, args);
    if ('result' in checked) return checked.result;
    const { input } = checked;
    const forgotten = await this.forgotten(op, input);
    if (forgotten) return forgotten;
    const key = requestKey(op, input);
    const namespace = cacheNamespace(op, this.deps.connection.bases);
    const stored = this.fromStore(namespace, key);
    if (stored) return this.answered(op, input, stored, { fromCache: true, spent: 0 });
    const { value, shared } = await this.onTheirWay.once(`${namespace}\n${key}`, () =>
      this.buy(op, input, namespace, key),
    );
    if (value.kind === 'refused') return value.result;
    if (shared) return this.answered(op, input, value.outcome, { fromCache: false, spent: 0, shared: true });
    const cost = {
      fromCache: value.fromCache === true,
      fromStore: value.fromStore === true,
      spent: value.paid ? 1 : 0,
    };
    return this.answered(op, input, value.outcome, cost, value);
  }

  private check(
    op: Operation,
    args: Record<string, unknown>,
  ): { input: CleanInput } | { result: CallToolResult } {
    const checked = validate(op, args);
    if (checked.ok) return { input: checked.input };
    const fields = [...new Set(checked.issues.map((i) => i.field))];
    return {
      result: errorResult(
        `Invalid input, not sent, no transaction spent: ${checked.message}. (${fields.length === 1 ? 'Field' : 'Fields'}: ${fields.join(', ')}.)`,
        { 'enrich/outcome': 'invalid', 'enrich/invalid': checked.issues },
      ),
    };
  }

  /** A person forgotten at their request: refused before the cache, nothing sent or kept. */
  private async forgotten(op: Operation, input: CleanInput): Promise<CallToolResult | undefined> {
    const { privacy, config } = this.deps;
    await privacy?.keep(config.cachePath);
    const reason = (await privacy?.refuse())?.(op, input);
    if (reason === undefined) return undefined;
    return errorResult(`${op.title}: not sent: ${reason}. No transaction spent, no answer kept or shown.`, {
      'enrich/outcome': 'forgotten',
    });
  }

  private fromStore(namespace: string, key: string): Outcome | undefined {
    const stored = this.deps.cache.get(namespace, key);
    if (stored) this.deps.budget.fromCache++;
    return stored;
  }

  // The steps after the local cache, once per request key at a time in this process.
  private async buy(op: Operation, input: CleanInput, namespace: string, key: string): Promise<Bought> {
    // Bought by another process (or another call here) since the lookup: free.
    const stored = this.fromStore(namespace, key);
    if (stored) return { kind: 'answered', outcome: stored, paid: false, fromCache: true };
    const opened = await this.deps.stores?.for(namespace);
    if (opened && 'problem' in opened)
      return refusal(`${op.title}: not sent: ${opened.problem}. Nothing was spent.`);
    const front = opened?.front;
    // Looked up before the person is asked: a question the team already paid for costs nothing.
    const kept = front && (await front.getMany([key])).get(key);
    if (kept) return this.fromShared(namespace, key, kept);
    const refused = await this.ceiling(op, input);
    if (refused) return { kind: 'refused', result: refused };
    const spend = { operation: op.id, count: 1 };
    if (front) {
      const step = await claimToBuy(front, key, spend, this.deps.stop).catch((error: unknown) => ({
        kind: 'failed' as const,
        message: this.deps.stop.aborted ? 'the server is stopping' : (error as Error).message,
      }));
      if (step.kind !== 'buy') this.deps.budget.settle(1, 0);
      if (step.kind === 'answer') return this.fromShared(namespace, key, step.outcome);
      if (step.kind === 'refused') return refusal(step.message, { 'enrich/outcome': 'budget' });
      if (step.kind === 'failed')
        return refusal(`${op.title}: not sent: ${step.message}. Nothing was spent.`);
    }
    let outcome: Outcome | undefined;
    let unkept: string | undefined;
    try {
      outcome = await this.send(op, input);
    } finally {
      const paid = outcome !== undefined && isPaid(outcome) ? 1 : 0;
      const unanswered = outcome?.kind === 'error' && outcome.error.code === 'unanswered' ? 1 : 0;
      this.deps.budget.settle(1, paid, unanswered);
      // In the shared store first: the paid answer (others waiting on the claim get it), or the
      // transaction back and the claim released.
      if (front) {
        unkept = await settleInStore(front, key, spend, outcome, paid === 1).then(
          () => undefined,
          (error: unknown) => (error as Error).message,
        );
      }
    }
    const bought = await this.record(op, namespace, key, outcome);
    return bought.kind === 'answered' && unkept !== undefined && bought.paid ? { ...bought, unkept } : bought;
  }

  /** An answer the shared store kept (another client bought it): free, and kept in the local cache too. */
  private async fromShared(namespace: string, key: string, outcome: Outcome): Promise<Bought> {
    this.deps.budget.fromCache++;
    await this.deps.cache.put(namespace, key, outcome);
    return { kind: 'answered', outcome, paid: false, fromCache: true, fromStore: true };
  }

  /** The budget (held for this call), then the person's word past the threshold; a refusal, or undefined. */
  private async ceiling(op: Operation, input: CleanInput): Promise<CallToolResult | undefined> {
    const { connection, budget, config, server } = this.deps;
    if (!connection.settings) return errorResult(connection.keyProblem ?? 'No API key. Nothing was sent.');
    if (!budget.reserve()) {
      return errorResult(
        `Refused before sending: the budget of this server (${budget.max} transaction${budget.max === 1 ? '' : 's'}, --max-transactions or ENRICH_MAX_TRANSACTIONS) is spent. Nothing was sent and nothing spent. Answers already bought are still answered free; restart the server with a bigger budget to spend more.`,
        { 'enrich/outcome': 'budget' },
      );
    }
    if (budget.committed <= config.confirmAbove || this.dontAskAgain) return undefined;
    const answer = await ask(
      server,
      `${op.title} for ${inputText(input)} spends 1 paid transaction (${budget.spent} spent by this server so far${
        budget.max === undefined ? '' : `, budget ${budget.max}`
      }). Spend it?`,
      true,
    );
    if (answer.answer === 'no') {
      budget.settle(1, 0);
      return errorResult('Not sent: the person declined to spend a transaction. Nothing was spent.', {
        'enrich/outcome': 'declined',
      });
    }
    if (answer.dontAskAgain) this.dontAskAgain = true;
    return undefined;
  }

  private async send(op: Operation, input: CleanInput): Promise<Outcome> {
    const { connection, transport, stop, log } = this.deps;
    const report = await callOperation(op, input, {
      transport,
      settings: connection.settings as NonNullable<Connection['settings']>,
      policy: DEFAULT_RETRY_POLICY,
      // A wait for Retry-After ends when the server stops (Ctrl-C, the client closing).
      sleep: (ms) => abortableSleep(ms, stop),
      isCancelled: () => stop.aborted,
      now: Date.now,
      onRetry: ({ delayMs, outcome }) =>
        log(
          `${op.title}: ${outcome.kind === 'error' ? outcome.error.message : ''} Trying again in ${(delayMs / 1000).toFixed(1)} s.`,
        ),
    });
    return report.outcome;
  }

  /** A paid answer goes into the ledger and the cache (on disk) before anyone is told. */
  private async record(
    op: Operation,
    namespace: string,
    key: string,
    outcome: Outcome | undefined,
  ): Promise<Bought> {
    if (!outcome)
      return { kind: 'refused', result: errorResult(`${op.title}: no answer. Nothing was spent.`) };
    if (!isPaid(outcome)) return { kind: 'answered', outcome, paid: false };
    this.deps.ledger.recordOne(op, this.deps.connection.bases);
    const kept = await this.deps.cache.put(namespace, key, outcome);
    return { kind: 'answered', outcome, paid: true, kept };
  }

  private answered(
    op: Operation,
    input: CleanInput,
    outcome: Outcome,
    cost: { fromCache: boolean; fromStore?: boolean; spent: number; shared?: boolean },
    bought?: { readonly kept?: Kept | undefined; readonly unkept?: string | undefined },
  ): CallToolResult {
    const result = outcomeResult(op, input, outcome, { ...cost, budget: this.deps.budget.describe() });
    const warnings: string[] = [];
    const kept = bought?.kept;
    // Said to the model too: asking again will pay again.
    if (kept?.where === 'nowhere') {
      warnings.push(
        `This answer could not be kept in the answer cache (${kept.reason}): only this server process remembers it, and another session would pay for it again.`,
      );
    }
    if (bought?.unkept !== undefined) {
      warnings.push(
        `This answer could not be kept in the shared answer store (${bought.unkept}): another client of the team may pay for it again.`,
      );
    }
    if (warnings.length === 0) return result;
    return {
      ...result,
      content: [...result.content, ...warnings.map((text) => ({ type: 'text' as const, text }))],
      _meta: { ...result._meta, 'enrich/kept': false },
    };
  }
}

function refusal(text: string, extra: Record<string, unknown> = {}): Bought {
  return { kind: 'refused', result: errorResult(text, extra) };
}
