// Splits a batch's distinct requests into answers already paid for (in the document cache, else in
// the durable store, which then warms the cache again) and requests still to send. Custom functions
// and sidebar chunks both start here, so that neither can send a request whose answer is kept.
import {
  buildRequest,
  type CleanInput,
  type Operation,
  type Outcome,
  operationUrl,
  type Settings,
} from '@enrich/core';
import { readStore } from './answer-store.js';
import { answerKey, documentCache, readAnswers, saveAnswers } from './answers.js';
import { freshSince } from './freshness.js';
import type { Job } from './send.js';
import { assertAllowedUrl } from './settings.js';

export interface Pending {
  readonly cache: GoogleAppsScript.Cache.Cache | null;
  /** Request key → the id its answer is cached and sent under. */
  readonly ids: ReadonlyMap<string, string>;
  /** Request key → its cached outcome. */
  readonly cached: ReadonlyMap<string, Outcome>;
  /** The requests to send, one per request key not in `cached`. */
  readonly jobs: readonly Job[];
}

export function pendingRequests(
  op: Operation,
  inputs: ReadonlyMap<string, CleanInput>,
  settings: Settings,
): Pending {
  const target = operationUrl(op, settings);
  if (!target.ok) throw new Error(target.message);
  assertAllowedUrl(target.url);
  const cache = documentCache();
  const ids = new Map<string, string>();
  for (const key of inputs.keys()) ids.set(key, answerKey(target.url, key));
  const since = freshSince();
  const hits = readAnswers(cache, [...ids.values()], since);
  const misses = [...ids.values()].filter((id) => !hits.has(id));
  const stored = readStore(misses, since);
  if (stored.size > 0) {
    // Warm the cache, so that the next recalculation does not read the sheet again.
    saveAnswers(
      cache,
      [...stored].map(([id, a]) => [id, a.outcome, { paidAt: a.paidAt, kept: true }] as const),
    );
    for (const [id, a] of stored) hits.set(id, a.outcome);
  }
  const cached = new Map<string, Outcome>();
  const jobs: Job[] = [];
  for (const [key, input] of inputs) {
    const id = ids.get(key) as string;
    const hit = hits.get(id);
    if (hit) {
      cached.set(key, hit);
      continue;
    }
    const built = buildRequest(op, input, settings);
    if (!built.ok) throw new Error(built.message);
    jobs.push({ id, request: built.request });
  }
  return { cache, ids, cached, jobs };
}
