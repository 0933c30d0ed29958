// The user's suppression list on disk (issue 38; what is hashed and what a hit says: core's
// suppression.ts): `suppression.json` in the user's data folder, mode 0600,
// {"v":1,"salt":"<64 hex>","entries":[{"hash":"<64 hex>","kind":"phone","on":"2026-11-25"}]}.
// No identity is written in clear: only its HMAC under the list's salt, its kind and the day.
// Replaced whole and crash-safe (aside-file.ts) under its own lock, so two forgets at once lose
// neither's entry. A list that cannot be read is an error, never an empty list: a run that could not
// read it must not buy a person it holds.
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Hmac,
  type Identity,
  SuppressionCheck,
  type SuppressionEntry,
  suppressionHash,
} from '@enrich/core';
import { BulkError } from '../run/bulk-error.js';
import { replaceFile } from './aside-file.js';
import { SUPPRESSION_FILE } from './data-folder.js';
import { lockFile } from './journal-rewrite.js';

export const nodeHmac: Hmac = (salt, text) => createHmac('sha256', salt).update(text).digest('hex');

interface ListFile {
  readonly v: 1;
  readonly salt: string;
  readonly entries: readonly SuppressionEntry[];
}

export function suppressionPath(dataDir: string): string {
  return join(dataDir, SUPPRESSION_FILE);
}

/** The list as it is on disk now (an empty list with a new salt when there is none yet). */
export function readSuppression(dataDir: string): ListFile {
  const path = suppressionPath(dataDir);
  if (!existsSync(path)) return { v: 1, salt: randomBytes(32).toString('hex'), entries: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new BulkError(
      `The suppression list ${path} cannot be read (${(error as Error).message}); nothing was sent`,
    );
  }
  if (!isListFile(parsed)) {
    throw new BulkError(`The suppression list ${path} is not one enrich wrote; nothing was sent`);
  }
  return parsed;
}

/** The user's list, ready to check requests before they are sent. */
export function loadSuppression(dataDir: string): SuppressionCheck {
  const list = readSuppression(dataDir);
  return new SuppressionCheck(nodeHmac, list.salt, list.entries);
}

/** The entries of these identities in the list, if any (for held and undo). */
export function suppressedEntries(dataDir: string, identities: readonly Identity[]): SuppressionEntry[] {
  const list = readSuppression(dataDir);
  const check = new SuppressionCheck(nodeHmac, list.salt, list.entries);
  return identities.flatMap((identity) => check.entryFor([identity]) ?? []);
}

/** Adds the identities (those not in it yet) on day `on`; returns how many were added. */
export async function addSuppressed(
  dataDir: string,
  identities: readonly Identity[],
  on: string,
): Promise<number> {
  return change(dataDir, (list) => {
    const have = new Set(list.entries.map((e) => e.hash));
    const added = identities
      .map((identity) => ({ hash: suppressionHash(nodeHmac, list.salt, identity), kind: identity.kind, on }))
      .filter((entry) => !have.has(entry.hash) && have.add(entry.hash));
    return { entries: [...list.entries, ...added], count: added.length };
  });
}

/**
 * Takes the identities out of the list, only where they were added on day `today` (a mistake made
 * today); returns those taken out and those kept (added on an earlier day).
 */
export async function undoSuppressed(
  dataDir: string,
  identities: readonly Identity[],
  today: string,
): Promise<{ readonly undone: number; readonly tooOld: readonly SuppressionEntry[] }> {
  let tooOld: SuppressionEntry[] = [];
  const undone = await change(dataDir, (list) => {
    const hashes = new Set(identities.map((identity) => suppressionHash(nodeHmac, list.salt, identity)));
    const mine = list.entries.filter((e) => hashes.has(e.hash));
    tooOld = mine.filter((e) => e.on !== today);
    const entries = list.entries.filter((e) => !hashes.has(e.hash) || e.on !== today);
    return { entries, count: list.entries.length - entries.length };
  });
  return { undone, tooOld };
}

async function change(
  dataDir: string,
  edit: (list: ListFile) => { entries: readonly SuppressionEntry[]; count: number },
): Promise<number> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = suppressionPath(dataDir);
  const lock = await lockFile(path, 'suppression list', 10_000);
  try {
    const list = readSuppression(dataDir);
    const { entries, count } = edit(list);
    if (count > 0 || !existsSync(path)) {
      const next: ListFile = { v: 1, salt: list.salt, entries };
      replaceFile(path, `${JSON.stringify(next)}\n`);
    }
    return count;
  } finally {
    lock.release();
  }
}

function isListFile(value: unknown): value is ListFile {
  if (typeof value !== 'object' || value === null) return false;
  const list = value as Partial<ListFile>;
  return (
    list.v === 1 &&
    typeof list.salt === 'string' &&
    Array.isArray(list.entries) &&
    list.entries.every(
      (e) => typeof e?.hash === 'string' && typeof e.kind === 'string' && typeof e.on === 'string',
    )
  );
}
