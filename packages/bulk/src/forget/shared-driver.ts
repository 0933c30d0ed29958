// The shared store's side of forgetting (postgres-privacy.ts), loaded only when a client has a shared
// store: `postgresPrivacy` is what a client that supports --store / ENRICH_STORE passes as the
// driver of its PrivacyTargets (forget-person.ts); a client without one (VS Code) never names it, so
// the PostgreSQL driver stays out of its bundle.
import type { SuppressionCheck } from '@enrich/core';
import { unavailable } from '../store/postgres-errors.js';
import type { ScheduledPrune } from './scheduled-prune.js';

export type PgPrivacy = typeof import('./postgres-privacy.js');

export interface SharedTarget {
  /** postgres://user:password@host:5432/database. */
  readonly url: string;
  /** The store's schema; `enrich` by default. */
  readonly schema?: string | undefined;
  readonly driver: () => Promise<PgPrivacy>;
}

/** Loads the shared store's privacy module (and the PostgreSQL driver with it). */
export const postgresPrivacy = (): Promise<PgPrivacy> => import('./postgres-privacy.js');

/** The shared store as a target, or undefined without a URL. */
export function sharedTarget(url: string | undefined, schema?: string): SharedTarget | undefined {
  return url === undefined ? undefined : { url, schema, driver: postgresPrivacy };
}

/** The shared store's suppression list; throws StoreUnavailable when it cannot be read. */
export async function readSharedSuppression(url: string, schema?: string): Promise<SuppressionCheck> {
  const pg = await postgresPrivacy();
  const privacy = await pg.openSharedPrivacy(url, schema);
  try {
    return await pg.loadSharedSuppression(privacy);
  } finally {
    await pg.closeSharedPrivacy(privacy);
  }
}

/**
 * The functions server's prune of the shared store on a schedule (scheduled-prune.ts): answers older
 * than `maxAgeMs` deleted, unless another instance does it now or did it less than half of `everyMs`
 * ago. Throws StoreUnavailable (no password) when the store cannot be reached.
 */
export async function pruneSharedOnSchedule(
  url: string,
  maxAgeMs: number,
  everyMs: number,
  schema?: string,
): Promise<ScheduledPrune> {
  const pg = await postgresPrivacy();
  const privacy = await pg.openSharedPrivacy(url, schema);
  try {
    return await pg.pruneOnSchedule(privacy, maxAgeMs, everyMs);
  } catch (error) {
    throw unavailable(privacy.where, 'pruning old answers', error);
  } finally {
    await pg.closeSharedPrivacy(privacy).catch(() => {});
  }
}
