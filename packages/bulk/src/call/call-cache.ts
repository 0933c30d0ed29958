// The local answer cache as one call uses it (one-call.ts): a lookup, and a paid answer kept before
// the call is answered. Each client keeps its own way: the CLI holds the AnswerStore open for its one
// call; the MCP server, alive for days beside other processes, opens it only for each lookup and each
// write. Both say where an answer went in the same words (Kept), written here once.
import type { Outcome } from '@enrich/core';
import type { AnswerStore } from '../store/answer-store.js';

/**
 * Where a paid answer was kept: it answers the same question free from then on, except 'nowhere'
 * (it could not be kept) and 'forgotten' (the person was forgotten while the call was under way:
 * the answer is given this once and kept nowhere, not even in memory).
 */
export type Kept =
  | { readonly where: 'journal' }
  | { readonly where: 'aside'; readonly path: string; readonly reason: string }
  | { readonly where: 'nowhere'; readonly reason: string }
  | { readonly where: 'forgotten'; readonly reason: string };

export interface CallCache {
  /** A fresh answer for the request, or undefined. */
  get(key: string): Outcome | undefined;
  /** Keeps a paid answer (durably, or set aside) before it resolves, and says where. */
  keep(key: string, outcome: Outcome): Promise<Kept>;
}

/**
 * Keeps a paid answer in an AnswerStore open for writing: journaled and synced; else (the disk
 * failed) written again or set aside in a rescue file that the next open takes in; else nowhere,
 * and why.
 */
export async function keepAnswer(store: AnswerStore, key: string, outcome: Outcome): Promise<Kept> {
  if (await store.put(key, outcome)) return { where: 'journal' };
  const saved = store.saveUnsaved();
  if (saved?.where === 'journal') return { where: 'journal' };
  if (saved?.where === 'rescue') {
    return { where: 'aside', path: saved.rescuePath as string, reason: saved.reason };
  }
  return { where: 'nowhere', reason: saved?.reason ?? 'unknown' };
}

/** The cache of a client that holds its AnswerStore open for the call (the CLI). */
export function heldCache(store: AnswerStore): CallCache {
  return {
    get: (key) => store.get(key),
    keep: (key, outcome) => keepAnswer(store, key, outcome),
  };
}
