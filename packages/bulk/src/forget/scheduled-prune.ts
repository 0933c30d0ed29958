// The shared store's prune on a schedule (issue 38, retention): what the functions server runs at
// start and every interval, so that answers older than the retention leave the team's table without
// anyone running `enrich cache prune --store`. Many instances share one store, and each has the
// timer; one prune a time for the whole store is enough:
// - an advisory lock, tried and never waited for: an instance that finds it held leaves the prune to
//   the one holding it ('busy');
// - the `maintenance` row `prune` (store/postgres-schema.ts) keeps when the store was last pruned: an
//   instance whose turn comes less than half an interval after another's prune leaves it ('recent'),
//   so N instances prune about once an interval, not N times.
// The delete and the row are one transaction with the lock: a prune cut half-way leaves nothing done
// and the row as it was. The answer says how many answers, never which.
import type pg from 'pg';
import { inTransaction } from '../store/postgres-transaction.js';

export type ScheduledPrune =
  | { readonly kind: 'pruned'; readonly removed: number }
  | { readonly kind: 'skipped'; readonly why: 'busy' | 'recent' };

const TASK = 'prune';

/** Prunes answers older than `maxAgeMs` unless another instance does it now or did it recently. */
export async function pruneOnSchedule(
  privacy: { readonly pool: pg.Pool; readonly schema: string },
  maxAgeMs: number,
  everyMs: number,
): Promise<ScheduledPrune> {
  const { pool, schema } = privacy;
  // A prune left to another instance ends with nothing to roll back: it wrote nothing.
  return inTransaction(pool, (client) => pruneInTransaction(client, schema, maxAgeMs, everyMs));
}

async function pruneInTransaction(
  client: pg.PoolClient,
  schema: string,
  maxAgeMs: number,
  everyMs: number,
): Promise<ScheduledPrune> {
  const locked = await client.query<{ got: boolean }>(
    'SELECT pg_try_advisory_xact_lock(hashtext($1), hashtext($2)) AS got',
    ['enrich-prune', schema],
  );
  if (locked.rows[0]?.got !== true) return { kind: 'skipped', why: 'busy' };
  const recent = await client.query(
    `SELECT 1 FROM ${schema}.maintenance
     WHERE task = $1 AND done_at > now() - $2::float8 * interval '1 millisecond'`,
    [TASK, everyMs / 2],
  );
  if (recent.rows.length > 0) return { kind: 'skipped', why: 'recent' };
  const removed = await deleteOlder(client, schema, maxAgeMs);
  await client.query(
    `INSERT INTO ${schema}.maintenance (task, done_at) VALUES ($1, now())
     ON CONFLICT (task) DO UPDATE SET done_at = excluded.done_at`,
    [TASK],
  );
  return { kind: 'pruned', removed };
}

/** Deletes answers bought longer ago than `maxAgeMs` (the database's clock); returns how many. */
export async function deleteOlder(
  db: pg.Pool | pg.PoolClient,
  schema: string,
  maxAgeMs: number,
): Promise<number> {
  const result = await db.query(
    `DELETE FROM ${schema}.answers WHERE bought_at <= now() - $1::float8 * interval '1 millisecond'`,
    [maxAgeMs],
  );
  return result.rowCount ?? 0;
}
