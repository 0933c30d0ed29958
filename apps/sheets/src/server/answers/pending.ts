// Splits a batch's distinct requests into answers already paid for (in the document cache, else in
// the hidden sheet, which then warms the cache again) and requests still to send. Custom functions
// and sidebar chunks both start here, so that neither can send a request whose answer is kept.
// A paid but unreadable answer is an answer like any other: never sent again on its own. Only a
// sidebar run the user started with "ask again" (its cost stated) sends those requests again.
import {
  buildRequest,
  type CleanInput,
  type Operation,
  type Outcome,
  operationUrl,
  type Settings,
} from '@enrich/core/universal';
import { assertAllowedUrl } from '../key/settings.js';
import type { Job } from '../send.js';
import { cacheAnswers, documentCache, readCachedAnswers } from './document-cache.js';
import { readHiddenSheet } from './hidden-sheet.js';
import { answerId, type PaidAnswer, whoOf } from './paid-answer.js';

export interface Pending {
  readonly cache: GoogleAppsScript.Cache.Cache | null;
  /** Request key → the id its answer is cached and sent under. */
  readonly ids: ReadonlyMap<string, string>;
  /** Request key → its cached outcome. */
  readonly cached: ReadonlyMap<string, Outcome>;
  /** Request key → when its kept answer was paid for (ms), for the cached ones. */
  readonly paidAt: ReadonlyMap<string, number>;
  /** The requests to send, one per request key not in `cached`. */
  readonly jobs: readonly Job[];
}

export interface PendingOptions {
  /** Answers paid for at or before this time (ms) are too old to reuse (freshness.ts): the payer's setting. */
  readonly freshSince: number;
  /** Paid but unreadable answers paid before this time (ms) are sent again: the user asked for it. */
  readonly askAgainBefore?: number;
}

/**
 * The answers kept for `ids` paid for after `since` (ms): the document cache first, then the hidden
 * sheet (whose answers are put back in the cache, so that the next recalculation does not read the
 * sheet again).
 */
export function keptAnswers(
  cache: GoogleAppsScript.Cache.Cache | null,
  ids: readonly string[],
  since: number,
): Map<string, PaidAnswer> {
  const hits = new Map<string, PaidAnswer>(readCachedAnswers(cache, ids, since));
  const misses = ids.filter((id) => !hits.has(id));
  const stored = readHiddenSheet(misses, since);
  if (stored.size > 0) {
    cacheAnswers(
      cache,
      [...stored].map(([id, a]) => [id, a.outcome, { paidAt: a.paidAt, kept: true, who: a.who }] as const),
    );
    for (const [id, a] of stored) hits.set(id, a);
  }
  return hits;
}

export function pendingRequests(
  op: Operation,
  inputs: ReadonlyMap<string, CleanInput>,
  settings: Settings,
  options: PendingOptions,
): Pending {
  const target = operationUrl(op, settings);
  if (!target.ok) throw new Error(target.message);
  assertAllowedUrl(target.url);
  const cache = documentCache();
  const ids = new Map<string, string>();
  for (const key of inputs.keys()) ids.set(key, answerId(target.url, key));
  const hits = keptAnswers(cache, [...ids.values()], options.freshSince);
  const askAgainBefore = options.askAgainBefore ?? 0;
  const cached = new Map<string, Outcome>();
  const paidAt = new Map<string, number>();
  const jobs: Job[] = [];
  for (const [key, input] of inputs) {
    const id = ids.get(key) as string;
    const kept = hits.get(id);
    const askAgain = kept?.outcome.kind === 'unreadable' && kept.paidAt < askAgainBefore;
    const hit = askAgain ? undefined : kept?.outcome;
    if (hit) {
      cached.set(key, hit);
      paidAt.set(key, kept?.paidAt ?? 0);
      continue;
    }
    const built = buildRequest(op, input, settings);
    if (!built.ok) throw new Error(built.message);
    jobs.push({ id, request: built.request, who: whoOf(op, input) });
  }
  return { cache, ids, cached, paidAt, jobs };
}
