// One question, for the clients that ask one at a time (the CLI's `enrich phone-lookup --Phone ...`,
// the MCP server's operation tools), through the purchase path's steps (DESIGN "One purchase path"),
// written once here; each client says the result in its own words:
//   check     the input, once: invalid input is refused before anything is sent, and its clean input
//             goes on to the client's send (core's callOperation knows it, and does not check it
//             again); then the client prepares the rest, knowing the input is valid;
//   refuse    a person forgotten at their request, before any cache is read;
//   cache     the local answer cache (free);
//   share     a question already on its way in this process (core's SharedRequests): three calls
//             asked at once with three spellings of one phone buy it once;
//   store     the team's shared answer store: an answer another client kept is free, and is looked
//             up before the ceiling, so that nobody is asked to pay for it;
//   ceiling   the client's own: its budget, the person's word;
//   claim     in the shared store: a question another process is buying now is waited for, not
//             bought again; one transaction reserved against the store's cap (store-steps.ts);
//   send      the client's call;
//   record    the paid answer in the shared store, the ledger (onPaid) and the local cache, before
//             the client is told; not paid, the store's transaction given back and its claim freed.
import {
  type CleanInput,
  type Issue,
  isPaid,
  type Operation,
  type Outcome,
  requestKey,
  SharedRequests,
  validate,
} from '@enrich/core';
import type { Refuse } from '../run/row-planner.js';
import type { StoreFront } from '../store/store-front.js';
import type { CallCache, Kept } from './call-cache.js';
import { claimToBuy, settleInStore } from './store-steps.js';

/** The shared store's front for a question, or why it could not be opened. */
export type SharedFront = { readonly front: StoreFront } | { readonly problem: string };

/** A ceiling passed and held for this purchase: settled with its outcome (none: nothing was sent). */
export interface Held {
  settle(outcome: Outcome | undefined): void;
}

/** A ceiling not passed: nothing is sent. `reason` names it for the client ('budget', 'declined'). */
export interface Refusal {
  readonly refused: string;
  readonly reason?: string | undefined;
}

/** What a client gives for one valid question (OneCalls.ask's prepare). */
export interface CallSteps {
  /** The service's namespace: a question is its namespace and its request key. */
  readonly namespace: string;
  readonly refuse?: Refuse | undefined;
  readonly cache?: CallCache | undefined;
  /** Whether a cached answer is used (always by default; the CLI's --retry-unreadable may say no). */
  readonly reuse?: ((cached: Outcome) => boolean) | undefined;
  /** The shared store's front, asked for when the local cache has no answer; none without a store. */
  readonly shared?: (() => Promise<SharedFront>) | undefined;
  /** The client's ceiling (a budget, the person's word), asked before anything is claimed or sent. */
  readonly ceiling?: ((input: CleanInput) => Promise<Held | Refusal>) | undefined;
  /** Sends the question: core's callOperation, given this clean input. */
  readonly send: (input: CleanInput) => Promise<Outcome>;
  /** One paid answer bought by this call (the client's ledger), before the cache keeps it. */
  readonly onPaid?: (() => void) | undefined;
  /** Ends a wait on another process's claim (the client is stopping). */
  readonly signal?: AbortSignal | undefined;
}

/** Where an answer came from: free from the local cache, the shared store or another call here; or bought. */
export type Source = 'cache' | 'store' | 'shared' | 'bought';

/** Past the check: what a purchase came to (the same for every call that shared it). */
export type Bought =
  | {
      readonly kind: 'answered';
      readonly input: CleanInput;
      readonly outcome: Outcome;
      readonly source: Source;
      /** Bought by this call and paid (core's isPaid): one transaction spent. */
      readonly paid: boolean;
      /** Where the local cache kept it (a paid answer, or one from the shared store). */
      readonly kept?: Kept | undefined;
      /** Why the shared store could not settle it after the call (a paid answer not kept there). */
      readonly storeProblem?: string | undefined;
    }
  /** The client's ceiling refused: nothing sent. */
  | {
      readonly kind: 'refused';
      readonly input: CleanInput;
      readonly message: string;
      readonly reason?: string | undefined;
    }
  /** The shared store's monthly cap refused: nothing sent. */
  | { readonly kind: 'store-refused'; readonly input: CleanInput; readonly where: string }
  /** The shared store could not be opened, or failed before sending: nothing sent. */
  | { readonly kind: 'store-failed'; readonly input: CleanInput; readonly message: string };

export type OneCall =
  | { readonly kind: 'invalid'; readonly message: string; readonly issues: readonly Issue[] }
  | { readonly kind: 'forgotten'; readonly input: CleanInput; readonly reason: string }
  | Bought;

/** The questions of one client process: those asked at the same moment share one purchase. */
export class OneCalls {
  private readonly onTheirWay = new SharedRequests<Bought>();

  /**
   * Asks one question: `given` as typed (any spelling), checked here; `prepare` gives the steps once
   * the input is known to be valid (the client opens its caches and reads its lists then).
   */
  async ask(
    op: Operation,
    given: unknown,
    prepare: (input: CleanInput) => Promise<CallSteps>,
  ): Promise<OneCall> {
    const checked = validate(op, given);
    if (!checked.ok) return { kind: 'invalid', message: checked.message, issues: checked.issues };
    const { input } = checked;
    const steps = await prepare(input);
    const reason = steps.refuse?.(op, input);
    if (reason !== undefined) return { kind: 'forgotten', input, reason };
    const key = requestKey(op, input);
    const cached = fromCache(steps, key);
    if (cached) return { kind: 'answered', input, outcome: cached, source: 'cache', paid: false };
    const { value, shared } = await this.onTheirWay.once(`${steps.namespace}\n${key}`, () =>
      buy(op, steps, input, key),
    );
    if (!shared || value.kind !== 'answered') return value;
    return { kind: 'answered', input, outcome: value.outcome, source: 'shared', paid: false };
  }
}

function fromCache(steps: CallSteps, key: string): Outcome | undefined {
  const cached = steps.cache?.get(key);
  return cached && (steps.reuse?.(cached) ?? true) ? cached : undefined;
}

// The steps after the local cache, once per question at a time in this process.
async function buy(op: Operation, steps: CallSteps, input: CleanInput, key: string): Promise<Bought> {
  // Bought by another process (or another call here) since the lookup: free.
  const cached = fromCache(steps, key);
  if (cached) return { kind: 'answered', input, outcome: cached, source: 'cache', paid: false };
  const opened = await steps.shared?.();
  if (opened && 'problem' in opened) return { kind: 'store-failed', input, message: opened.problem };
  const front = opened?.front;
  if (front) {
    const kept = await front.getMany([key]).then(
      (found) => found.get(key),
      (error: unknown) => error as Error,
    );
    if (kept instanceof Error) return { kind: 'store-failed', input, message: kept.message };
    if (kept) return fromStore(steps, input, key, kept);
  }
  const held = await steps.ceiling?.(input);
  if (held && 'refused' in held)
    return { kind: 'refused', input, message: held.refused, reason: held.reason };
  const spend = { operation: op.id, count: 1 };
  if (front) {
    const step = await claimToBuy(front, key, spend, steps.signal).catch((error: unknown) => error as Error);
    if (step instanceof Error || step.kind !== 'buy') held?.settle(undefined);
    if (step instanceof Error) return { kind: 'store-failed', input, message: step.message };
    if (step.kind === 'answer') return fromStore(steps, input, key, step.outcome);
    if (step.kind === 'refused') return { kind: 'store-refused', input, where: front.where };
  }
  let outcome: Outcome | undefined;
  let storeProblem: string | undefined;
  try {
    outcome = await steps.send(input);
  } finally {
    held?.settle(outcome);
    // In the shared store first: the paid answer (others waiting on the claim get it), or the
    // transaction back and the claim released.
    if (front) {
      storeProblem = await settleInStore(front, key, spend, outcome).then(
        () => undefined,
        (error: unknown) => (error as Error).message,
      );
    }
  }
  const sent = outcome as Outcome;
  if (!isPaid(sent))
    return { kind: 'answered', input, outcome: sent, source: 'bought', paid: false, storeProblem };
  steps.onPaid?.();
  const kept = await steps.cache?.keep(key, sent);
  return { kind: 'answered', input, outcome: sent, source: 'bought', paid: true, kept, storeProblem };
}

/** An answer the shared store kept (another client bought it): free, and kept in the local cache too. */
async function fromStore(
  steps: CallSteps,
  input: CleanInput,
  key: string,
  outcome: Outcome,
): Promise<Bought> {
  const kept = await steps.cache?.keep(key, outcome);
  return { kind: 'answered', input, outcome, source: 'store', paid: false, kept };
}
