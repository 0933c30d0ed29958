// What `enrich forget`, `--undo`, `enrich held` and `enrich cache prune` do across every store of the
// user (issue 38), in one place for every client (the CLI; VS Code's Forget a Person adds its own
// History through `more`):
// forget: 1. the identities go into the suppression lists first (the user's, and the shared store's
//            when there is one), so that nothing is bought for the person from here on, even if a
//            step below fails and forget must be run again;
//         2. every local journal and the shared store lose every answer that holds the person, and so
//            do the answers a front of the shared store set aside on this machine (postgres-rescue.ts);
//         3. the request is recorded, without personal data (forget-log.ts).
// undo:   the suppression entries added today are taken out (answers already removed stay removed).
// held:   what every store keeps on the identities, read only.
// prune:  answers older than the retention are removed from every store.
import { type Identity, type IdentityKind, IdentityMatcher, utcDay } from '@enrich/core';
import { addToForgetLog, type StoreReport } from './forget-log.js';
import { forgetLocal, type HeldAnswer, heldLocal, type LocalStores, pruneLocal } from './local-stores.js';
import type { SharedPrivacy } from './postgres-privacy.js';
import { forgetSetAside, heldSetAside, pruneSetAside, type SetAsideOf } from './postgres-rescue.js';
import { retentionMs } from './retention.js';
import type { PgPrivacy, SharedTarget } from './shared-driver.js';
import { addSuppressed, undoSuppressed } from './suppression-file.js';

export interface PrivacyTargets extends LocalStores {
  /** The shared store (--store / ENRICH_STORE), if the user has one: see shared-driver.ts. */
  readonly shared?: SharedTarget | undefined;
  /** A client's own stores (VS Code's History): forgotten or pruned after the others. */
  readonly more?: {
    forget(matcher: IdentityMatcher): Promise<StoreReport[]>;
    prune(oldest: number): Promise<StoreReport[]>;
    held(matcher: IdentityMatcher): Promise<HeldAnswer[]>;
  };
  readonly now?: () => number;
}

export interface ForgetReport {
  readonly on: string;
  /** Entries added to the user's list and to the shared store's (0: every identity was in them). */
  readonly suppressed: { readonly local: number; readonly shared?: number | undefined };
  readonly stores: readonly StoreReport[];
  /** Whether every store was done (none failed). */
  readonly complete: boolean;
}

export function kindCounts(identities: readonly Identity[]): Partial<Record<IdentityKind, number>> {
  const counts: Partial<Record<IdentityKind, number>> = {};
  for (const { kind } of identities) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

export async function forgetEverywhere(
  targets: PrivacyTargets,
  identities: readonly Identity[],
): Promise<ForgetReport> {
  const now = (targets.now ?? Date.now)();
  const on = utcDay(now);
  const matcher = new IdentityMatcher(identities);
  const local = await addSuppressed(targets.dataDir, identities, on);
  const stores: StoreReport[] = [];
  let shared: number | undefined;
  await withShared(targets, stores, async (privacy, pg) => {
    shared = await pg.addSharedSuppressed(privacy, identities, on);
    stores.push({ store: privacy.where, removed: await pg.forgetInShared(privacy, matcher) });
  });
  stores.unshift(...(await forgetLocal(targets, matcher)));
  const setAside = targets.shared && (await forgetSetAside(setAsideOf(targets, targets.shared), matcher));
  if (setAside) stores.push(setAside);
  if (targets.more) stores.push(...(await targets.more.forget(matcher)));
  const suppression = local + (shared ?? 0);
  await addToForgetLog(
    targets.dataDir,
    {
      v: 1,
      at: new Date(now).toISOString(),
      action: 'forget',
      kinds: kindCounts(identities),
      suppression,
      stores,
    },
    now,
  );
  return { on, suppressed: { local, shared }, stores, complete: stores.every((s) => s.failed === undefined) };
}

export interface UndoReport {
  readonly undone: number;
  /** Identities forgotten on an earlier day: kept (undo is for a mistake made today). */
  readonly tooOld: readonly { readonly kind: IdentityKind; readonly on: string }[];
  readonly stores: readonly StoreReport[];
}

export async function undoForget(
  targets: PrivacyTargets,
  identities: readonly Identity[],
): Promise<UndoReport> {
  const now = (targets.now ?? Date.now)();
  const today = utcDay(now);
  const local = await undoSuppressed(targets.dataDir, identities, today);
  let undone = local.undone;
  const tooOld = [...local.tooOld];
  const stores: StoreReport[] = [];
  await withShared(targets, stores, async (privacy, pg) => {
    const shared = await pg.undoSharedSuppressed(privacy, identities, today);
    undone += shared.undone;
    tooOld.push(...shared.tooOld);
  });
  await addToForgetLog(
    targets.dataDir,
    {
      v: 1,
      at: new Date(now).toISOString(),
      action: 'undo',
      kinds: kindCounts(identities),
      suppression: undone,
      stores,
    },
    now,
  );
  return { undone, tooOld: tooOld.map(({ kind, on }) => ({ kind, on })), stores };
}

export async function heldEverywhere(
  targets: PrivacyTargets,
  identities: readonly Identity[],
): Promise<{ readonly held: HeldAnswer[]; readonly stores: readonly StoreReport[] }> {
  const matcher = new IdentityMatcher(identities);
  const held = heldLocal(targets, matcher);
  const stores: StoreReport[] = [];
  await withShared(targets, stores, async (privacy, pg) => {
    for (const row of await pg.heldInShared(privacy, matcher)) {
      held.push({
        store: privacy.where,
        namespace: row.namespace,
        key: row.key,
        at: row.boughtAt.getTime(),
        outcome: JSON.parse(row.outcome),
      });
    }
  });
  if (targets.shared) held.push(...heldSetAside(setAsideOf(targets, targets.shared), matcher));
  if (targets.more) held.push(...(await targets.more.held(matcher)));
  return { held, stores };
}

export async function pruneEverywhere(
  targets: PrivacyTargets,
): Promise<{ readonly days: number; readonly stores: StoreReport[] }> {
  const now = (targets.now ?? Date.now)();
  const maxAge = retentionMs(targets.dataDir);
  const stores = await pruneLocal(targets, now - maxAge);
  await withShared(targets, stores, async (privacy, pg) => {
    stores.push({ store: privacy.where, removed: await pg.pruneShared(privacy, maxAge) });
  });
  const setAside = targets.shared && (await pruneSetAside(setAsideOf(targets, targets.shared), now - maxAge));
  if (setAside) stores.push(setAside);
  if (targets.more) stores.push(...(await targets.more.prune(now - maxAge)));
  await addToForgetLog(
    targets.dataDir,
    { v: 1, at: new Date(now).toISOString(), action: 'prune', kinds: {}, suppression: 0, stores },
    now,
  );
  return { days: maxAge / 86_400_000, stores };
}

// The shared store's answers set aside on this machine: found from its URL, without the database.
function setAsideOf(targets: PrivacyTargets, shared: SharedTarget): SetAsideOf {
  return {
    url: shared.url,
    schema: shared.schema,
    rescueDir: targets.rescueDir,
    lockWaitMs: targets.lockWaitMs,
  };
}

// Opens the shared store when there is one; a store out of reach is a failed store in the report.
async function withShared(
  targets: PrivacyTargets,
  stores: StoreReport[],
  work: (privacy: SharedPrivacy, pg: PgPrivacy) => Promise<void>,
): Promise<void> {
  if (targets.shared === undefined) return;
  let privacy: SharedPrivacy | undefined;
  const pg = await targets.shared.driver();
  try {
    privacy = await pg.openSharedPrivacy(targets.shared.url, targets.shared.schema);
    await work(privacy, pg);
  } catch (error) {
    stores.push({
      store: privacy?.where ?? 'the shared store',
      removed: 0,
      failed: (error as Error).message,
    });
  } finally {
    if (privacy) await pg.closeSharedPrivacy(privacy);
  }
}
