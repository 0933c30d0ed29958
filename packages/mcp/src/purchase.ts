// One operation tool call, through the purchase path's steps, which @enrich/bulk's OneCalls takes
// for every client that asks one question at a time (the CLI's one-off call too): the input checked
// once, forgotten people refused, the answer cache, a question already on its way shared, the team's
// shared answer store, the ceiling, the claim, one request, the record. What is this server's own is
// here: its ceiling (the budget, then the person's word past --confirm-above), how it sends (core's
// call, cut short when the server stops), its ledger, and its results in words.
import {
  type CallSteps,
  cacheNamespace,
  type Held,
  type OneCall,
  OneCalls,
  type Refusal,
} from '@enrich/bulk';
import {
  abortableSleep,
  type CleanInput,
  callOperation,
  DEFAULT_RETRY_POLICY,
  inputText,
  isPaid,
  type Operation,
  type Outcome,
  type Transport,
} from '@enrich/core';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { BriefAnswerStore } from './brief-answer-store.js';
import type { Budget } from './budget.js';
import type { Config } from './config.js';
import { ask } from './confirm.js';
import type { Connection } from './connection.js';
import type { Privacy } from './privacy.js';
import { errorResult, outcomeResult } from './reading.js';
import type { SharedStores } from './shared-stores.js';
import type { McpLedger } from './spend-ledger.js';

export interface PurchaseDeps {
  readonly server: Server;
  readonly config: Config;
  readonly connection: Connection;
  readonly cache: BriefAnswerStore;
  readonly budget: Budget;
  readonly ledger: McpLedger;
  readonly transport: Transport;
  /** The team's shared answer store, if one is configured. */
  readonly stores?: SharedStores | undefined;
  /** The suppression lists (privacy.ts): forgotten people are refused before anything else. */
  readonly privacy?: Privacy | undefined;
  readonly log: (text: string) => void;
  /** Aborted when the server stops: waits end at once, requests in flight are cut. */
  readonly stop: AbortSignal;
}

export class Purchases {
  private readonly calls = new OneCalls();
  private dontAskAgain = false;

  constructor(private readonly deps: PurchaseDeps) {}

  async call(op: Operation, args: Record<string, unknown>): Promise<CallToolResult> {
    const asked = await this.calls.ask(op, args, (input) => this.steps(op, input));
    return this.result(op, asked);
  }

  /** This server's steps for one valid question of `op`. */
  private async steps(op: Operation, input: CleanInput): Promise<CallSteps> {
    const { privacy, config, connection, stores, cache, ledger, stop } = this.deps;
    // The answer cache registered and kept to the retention before it is read (privacy.ts).
    await privacy?.keep(config.cachePath);
    const namespace = cacheNamespace(op, connection.bases);
    return {
      namespace,
      refuse: await privacy?.refuse(),
      cache: cache.for(namespace),
      shared: stores && (() => stores.for(namespace)),
      ceiling: () => this.ceiling(op, input),
      send: (clean) => this.send(op, clean),
      onPaid: () => ledger.recordOne(op, connection.bases),
      signal: stop,
    };
  }

  /** The budget (held for this call), then the person's word past the threshold. */
  private async ceiling(op: Operation, input: CleanInput): Promise<Held | Refusal> {
    const { connection, budget, config, server } = this.deps;
    if (!connection.settings) return { refused: connection.keyProblem ?? 'No API key. Nothing was sent.' };
    if (!budget.reserve()) {
      return {
        refused: `Refused before sending: the budget of this server (${budget.max} transaction${budget.max === 1 ? '' : 's'}, --max-transactions or ENRICH_MAX_TRANSACTIONS) is spent. Nothing was sent and nothing spent. Answers already bought are still answered free; restart the server with a bigger budget to spend more.`,
        reason: 'budget',
      };
    }
    const held: Held = {
      settle: (outcome) => {
        const unanswered = outcome?.kind === 'error' && outcome.error.code === 'unanswered';
        budget.settle(1, outcome !== undefined && isPaid(outcome) ? 1 : 0, unanswered ? 1 : 0);
      },
    };
    if (budget.committed <= config.confirmAbove || this.dontAskAgain) return held;
    const answer = await ask(
      server,
      `${op.title} for ${inputText(input)} spends 1 paid transaction (${budget.spent} spent by this server so far${
        budget.max === undefined ? '' : `, budget ${budget.max}`
      }). Spend it?`,
      true,
    );
    if (answer.answer === 'no') {
      held.settle(undefined);
      return {
        refused: 'Not sent: the person declined to spend a transaction. Nothing was spent.',
        reason: 'declined',
      };
    }
    if (answer.dontAskAgain) this.dontAskAgain = true;
    return held;
  }

  private async send(op: Operation, input: CleanInput): Promise<Outcome> {
    const { connection, transport, stop, log } = this.deps;
    // The input is validate()'s own: core's call does not check it again.
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

  /** The call's result, in this server's words. */
  private result(op: Operation, asked: OneCall): CallToolResult {
    switch (asked.kind) {
      case 'invalid': {
        const fields = [...new Set(asked.issues.map((i) => i.field))];
        return errorResult(
          `Invalid input, not sent, no transaction spent: ${asked.message}. (${fields.length === 1 ? 'Field' : 'Fields'}: ${fields.join(', ')}.)`,
          { 'enrich/outcome': 'invalid', 'enrich/invalid': asked.issues },
        );
      }
      case 'forgotten':
        return errorResult(
          `${op.title}: not sent: ${asked.reason}. No transaction spent, no answer kept or shown.`,
          { 'enrich/outcome': 'forgotten' },
        );
      case 'refused':
        return errorResult(asked.message, asked.reason ? { 'enrich/outcome': asked.reason } : {});
      case 'store-refused':
        return errorResult(
          `Refused before sending: budget: the shared answer store (${asked.where}) refused the transaction: its budget (the cap per month, --max-transactions-per-month) is spent. Nothing was sent and nothing spent. Answers already in the store are still answered free.`,
          { 'enrich/outcome': 'budget' },
        );
      case 'store-failed': {
        const why = this.deps.stop.aborted ? 'the server is stopping' : asked.message;
        return errorResult(`${op.title}: not sent: ${why}. Nothing was spent.`);
      }
      case 'answered':
        return this.answered(op, asked);
    }
  }

  private answered(op: Operation, asked: Extract<OneCall, { kind: 'answered' }>): CallToolResult {
    const { budget } = this.deps;
    const { source } = asked;
    if (source === 'cache' || source === 'store') budget.fromCache++;
    const cost = {
      fromCache: source === 'cache' || source === 'store',
      fromStore: source === 'store',
      shared: source === 'shared',
      spent: asked.paid ? 1 : 0,
    };
    const result = outcomeResult(op, asked.input, asked.outcome, { ...cost, budget: budget.describe() });
    const warnings: string[] = [];
    // Said to the model too: asking again will pay again.
    if (asked.paid && asked.kept?.where === 'nowhere') {
      warnings.push(
        `This answer could not be kept in the answer cache (${asked.kept.reason}): only this server process remembers it, and another session would pay for it again.`,
      );
    }
    if (asked.paid && asked.kept?.where === 'forgotten') {
      warnings.push(
        `This person was forgotten at their request while the call was under way (${asked.kept.reason}): the answer is shown this once and was not kept anywhere; do not store it.`,
      );
    }
    if (asked.paid && asked.storeProblem !== undefined) {
      warnings.push(
        `This answer could not be kept in the shared answer store (${asked.storeProblem}): another client of the team may pay for it again.`,
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
