// Moves answers that are only in the document cache into the hidden sheet (hidden-sheet.ts).
// Custom functions cannot write the spreadsheet, so every execution that may write runs this first:
// menu items, every sidebar call, and the simple triggers onOpen and onEdit where the platform lets
// them (AuthMode.LIMITED); where it refuses, nothing breaks and the next writable action keeps them.
// It never sends a request: keeping answers costs no transaction.

import { foldLedger } from '../allowance/ledger.js';
import { underDocumentLock } from '../document-lock.js';
import { logText } from '../key/scrub.js';
import { documentCache, markKept, readAllCachedAnswers, UNKEPT_HINT } from './document-cache.js';
import { keepSince } from './freshness.js';
import { writeHiddenSheet } from './hidden-sheet.js';
import type { PaidAnswer } from './paid-answer.js';

export interface KeepReport {
  /** Answers moved into the hidden sheet by this call. */
  readonly kept: number;
  /** Why nothing was done, when it was not. */
  readonly skipped?: 'no-cache' | 'busy' | 'refused';
}

/**
 * Keeps every cached answer not yet in the hidden sheet. With `onlyIfHinted` (the simple triggers, which
 * run on every edit) it first checks the one small cache item that formulas set when they pay, and
 * does nothing without it.
 */
export function keepCachedAnswers(onlyIfHinted = false): KeepReport {
  const cache = documentCache();
  if (!cache) return { kept: 0, skipped: 'no-cache' };
  if (onlyIfHinted && cache.get(UNKEPT_HINT) === null) return { kept: 0 };
  const done = underDocumentLock(5_000, (): KeepReport => {
    // What formulas spent is counted in the cache only: keep the count where it lasts too.
    foldLedger(cache);
    const since = keepSince();
    const unkept = new Map<string, PaidAnswer>();
    for (const [id, answer] of readAllCachedAnswers(cache, since)) {
      if (!answer.kept) unkept.set(id, { outcome: answer.outcome, paidAt: answer.paidAt, who: answer.who });
    }
    if (unkept.size === 0) {
      cache.remove(UNKEPT_HINT);
      return { kept: 0 };
    }
    const kept = writeHiddenSheet(unkept, since);
    markKept(cache, [...unkept.keys()]);
    return { kept };
  });
  return done ? done.value : { kept: 0, skipped: 'busy' };
}

/**
 * Runs a writable action, then keeps cached answers (also those the action itself bought). After,
 * not before: the action's own work comes first, and a failure to keep never changes its outcome.
 * With `after`, only when it says so of the action's result (and always when the action failed).
 */
export function keepingAnswers<A extends unknown[], R>(
  action: (...args: A) => R,
  after?: (result: R) => boolean,
): (...args: A) => R {
  return (...args: A) => {
    let keep = true;
    try {
      const result = action(...args);
      keep = after?.(result) ?? true;
      return result;
    } finally {
      try {
        if (keep) keepCachedAnswers();
      } catch (error) {
        console.warn(logText(`Could not keep cached answers: ${(error as Error).message}`));
      }
    }
  };
}

/** How many cached formula answers the hidden sheet does not have yet (the sidebar shows it). */
export function countUnkept(): number {
  const cache = documentCache();
  if (!cache) return 0;
  let count = 0;
  for (const answer of readAllCachedAnswers(cache, keepSince()).values()) if (!answer.kept) count++;
  return count;
}
