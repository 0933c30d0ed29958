// The answers a PostgreSQL store's front set aside on this machine (issue 38): paid answers it could
// not write before it closed (the database down), kept in rescue files named for the store and its
// schema in the rescue folder (store/postgres-held.ts; the temp directory unless a client names
// another), until the next open of that store here writes them to it. They are the store's answers
// too, so forget removes the person from them, held lists them and prune drops the old ones, from
// the store's URL alone: the files are found without the database, which may be down still. Each
// file is rewritten under the files' lock, the one the store's import takes, so an import never
// writes back a line a forget just removed. An import after a forget does not keep the person
// either: every write of the store skips the people in its suppression list.
import { tmpdir } from 'node:os';
import type { IdentityMatcher } from '@enrich/core';
import { postgresRescueName, postgresRescuePath } from '../store/postgres-held.js';
import { rescueFiles } from '../store/rescue-files.js';
import { describePostgresUrl } from '../store/store-url.js';
import type { StoreReport } from './forget-log.js';
import { type Drop, lockFile, rewriteSmall } from './journal-rewrite.js';
import { type HeldAnswer, heldInSmallFiles, isOlder } from './local-stores.js';

export interface SetAsideOf {
  /** The store's URL (postgres://...); its password is never shown. */
  readonly url: string;
  readonly schema?: string | undefined;
  /** Where the store's fronts set answers aside (the temp directory by default, as theirs). */
  readonly rescueDir?: string | undefined;
  /** How long to wait for a front importing them now; 10 s by default. */
  readonly lockWaitMs?: number | undefined;
}

function located(of: SetAsideOf) {
  const where = describePostgresUrl(of.url);
  const schema = of.schema ?? 'enrich';
  const dir = of.rescueDir ?? tmpdir();
  return {
    store: `answers set aside for ${where}`,
    name: postgresRescueName(where, schema, dir),
    path: postgresRescuePath(where, schema, dir),
  };
}

/**
 * Rewrites the store's set-aside answers without the lines `drop` picks; a report, or undefined when
 * this machine has none of them (nothing to say).
 */
async function rewriteSetAside(of: SetAsideOf, drop: Drop): Promise<StoreReport | undefined> {
  const { store, name, path } = located(of);
  if (rescueFiles(path).length === 0) return undefined;
  try {
    const lock = await lockFile(name, 'answers set aside', of.lockWaitMs ?? 10_000);
    try {
      let removed = 0;
      // Listed again under the lock: an import may have taken some in meanwhile.
      for (const file of rescueFiles(path)) removed += rewriteSmall(file, drop).removed;
      return { store, removed };
    } finally {
      lock.release();
    }
  } catch (error) {
    return { store, removed: 0, failed: (error as Error).message };
  }
}

/** Removes every set-aside answer that holds one of the identities. */
export function forgetSetAside(of: SetAsideOf, matcher: IdentityMatcher): Promise<StoreReport | undefined> {
  return rewriteSetAside(of, (line) => matcher.find(line) !== undefined);
}

/** Removes every set-aside answer bought before `oldest` (epoch ms). */
export function pruneSetAside(of: SetAsideOf, oldest: number): Promise<StoreReport | undefined> {
  return rewriteSetAside(of, (line) => isOlder(line, oldest));
}

/** Every set-aside answer that holds one of the identities; reads only. */
export function heldSetAside(of: SetAsideOf, matcher: IdentityMatcher): HeldAnswer[] {
  const { store, path } = located(of);
  return heldInSmallFiles(rescueFiles(path), store, matcher);
}
