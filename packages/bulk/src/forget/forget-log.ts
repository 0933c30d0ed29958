// The record of forget requests (issue 38), without personal data: what a privacy officer shows to
// prove a deletion was done, and when. `forget-log.jsonl` in the user's data folder, one line per
// request: when, what was asked (forget, undo, prune), the kinds of identity (never a value), how
// many entries the suppression list gained or lost, and what was removed from each store (its
// name, the count, or why it could not be done). Lines older than 24 months are dropped whenever a
// line is added. Replaced whole and crash-safe under its own lock.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IdentityKind } from '@enrich/core';
import { replaceFile } from './aside-file.js';
import { FORGET_LOG_FILE } from './data-folder.js';
import { lockFile } from './journal-rewrite.js';

/** How long a request's record is kept: 24 months. */
export const LOG_KEPT_MONTHS = 24;

export interface StoreReport {
  /** The store, as said to users: "journal /x/.enrich-cache.jsonl", "postgres db@host:5432/x". */
  readonly store: string;
  readonly removed: number;
  /** Why it could not be done (busy, unreachable); then removed is 0 and the request must be run again. */
  readonly failed?: string;
  /** The store no longer exists (a journal moved or deleted): nothing to remove. */
  readonly missing?: boolean;
}

export interface LogEntry {
  readonly v: 1;
  /** ISO time in UTC. */
  readonly at: string;
  readonly action: 'forget' | 'undo' | 'prune';
  /** How many identities of each kind the request named (counts only). */
  readonly kinds: Partial<Record<IdentityKind, number>>;
  /** Entries added to (forget) or taken out of (undo) the suppression lists. */
  readonly suppression: number;
  readonly stores: readonly StoreReport[];
}

export function forgetLogPath(dataDir: string): string {
  return join(dataDir, FORGET_LOG_FILE);
}

export function readForgetLog(dataDir: string): LogEntry[] {
  const path = forgetLogPath(dataDir);
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        const entry = JSON.parse(line) as LogEntry;
        return entry?.v === 1 && typeof entry.at === 'string' ? [entry] : [];
      } catch {
        return [];
      }
    });
}

/** Adds a request's record, dropping records older than 24 months. */
export async function addToForgetLog(dataDir: string, entry: LogEntry, now = Date.now()): Promise<void> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = forgetLogPath(dataDir);
  const lock = await lockFile(path, 'record of forget requests', 10_000);
  try {
    const oldest = new Date(now);
    oldest.setUTCMonth(oldest.getUTCMonth() - LOG_KEPT_MONTHS);
    const kept = readForgetLog(dataDir).filter((e) => Date.parse(e.at) >= oldest.getTime());
    replaceFile(path, [...kept, entry].map((e) => `${JSON.stringify(e)}\n`).join(''));
  } finally {
    lock.release();
  }
}
