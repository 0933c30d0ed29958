// Forgetting in the shared PostgreSQL store (issue 38), beside the store's front (store/): the team's
// suppression list, and forget, held and prune over the answers table of every namespace. A module
// of its own, with its own small pool, so that the front is untouched; it runs the store's migration
// first, which makes the list's tables (store/postgres-schema.ts, version 3):
// - suppression (hash) -> kind, forgotten_on: the team's list, salted hashes only (core's
//   suppression.ts), checked by every client of the store before a paid call, and by every write of
//   an answer (store/postgres-suppression.ts: entries are added under the list's lock, so that a
//   write in flight either commits before them, and is found by the scan below, or keeps nothing);
// - suppression_salt: one row, the list's random salt.
// A forget scans the answers in pages of the primary key (any size of table, a bounded memory),
// matches each row's key and outcome as text with core's IdentityMatcher (the same rule as the
// journals), and deletes what matched, with the claims on those keys (a claim's key holds the
// request). Nothing it throws holds a row, a key or the password.
import {
  type Identity,
  type IdentityMatcher,
  SuppressionCheck,
  type SuppressionEntry,
  suppressionHash,
} from '@enrich/core';
import pg from 'pg';
import { unavailable } from '../store/postgres-errors.js';
import { checkSchemaName, migrate } from '../store/postgres-schema.js';
import { readSalt, suppressionLock } from '../store/postgres-suppression.js';
import { inTransaction } from '../store/postgres-transaction.js';
import { describePostgresUrl } from '../store/store-url.js';
import { deleteOlder } from './scheduled-prune.js';
import { nodeHmac } from './suppression-file.js';

export interface SharedPrivacy {
  /** "postgres user@host:5432/db": where, without the password. */
  readonly where: string;
  readonly pool: pg.Pool;
  readonly schema: string;
}

const PAGE = 2000;

/** Connects and migrates (the list's tables are the store's); throws StoreUnavailable when it cannot. */
export async function openSharedPrivacy(url: string, schema = 'enrich'): Promise<SharedPrivacy> {
  checkSchemaName(schema);
  const where = describePostgresUrl(url);
  const pool = new pg.Pool({ connectionString: url.trim(), max: 2, connectionTimeoutMillis: 10_000 });
  pool.on('error', () => {});
  try {
    await migrate(pool, schema);
  } catch (error) {
    await pool.end().catch(() => {});
    throw unavailable(where, 'opening the store', error);
  }
  return { where, pool, schema };
}

export async function closeSharedPrivacy(privacy: SharedPrivacy): Promise<void> {
  await privacy.pool.end();
}

const saltOf = (privacy: SharedPrivacy): Promise<string> => readSalt(privacy.pool, privacy.schema);

/** The team's list, ready to check requests. */
export async function loadSharedSuppression(privacy: SharedPrivacy): Promise<SuppressionCheck> {
  try {
    const salt = await saltOf(privacy);
    const rows = await privacy.pool.query<{ hash: string; kind: Identity['kind']; on: string }>(
      `SELECT hash, kind, to_char(forgotten_on, 'YYYY-MM-DD') AS on FROM ${privacy.schema}.suppression`,
    );
    return new SuppressionCheck(nodeHmac, salt, rows.rows);
  } catch (error) {
    throw unavailable(privacy.where, 'reading the suppression list', error);
  }
}

/**
 * Adds the identities on day `on` (those not in it yet), in one transaction under the list's lock
 * (store/postgres-suppression.ts): it waits for the writes of answers in flight to commit, and
 * writes after it see the entries. Returns how many were added.
 */
export async function addSharedSuppressed(
  privacy: SharedPrivacy,
  identities: readonly Identity[],
  on: string,
): Promise<number> {
  const { pool, schema } = privacy;
  const salt = await saltOf(privacy);
  const add = async (client: pg.PoolClient) => {
    const result = await client.query(
      `INSERT INTO ${schema}.suppression (hash, kind, forgotten_on)
       SELECT hash, kind, $3::date FROM unnest($1::text[], $2::text[]) AS u(hash, kind)
       ON CONFLICT DO NOTHING`,
      [
        identities.map((identity) => suppressionHash(nodeHmac, salt, identity)),
        identities.map((i) => i.kind),
        on,
      ],
    );
    return result.rowCount ?? 0;
  };
  return inTransaction(pool, add, suppressionLock(schema, 'exclusive'));
}

/** Takes the identities out where they were added on day `today`; returns those taken out and those kept. */
export async function undoSharedSuppressed(
  privacy: SharedPrivacy,
  identities: readonly Identity[],
  today: string,
): Promise<{ readonly undone: number; readonly tooOld: readonly SuppressionEntry[] }> {
  const salt = await saltOf(privacy);
  const hashes = identities.map((identity) => suppressionHash(nodeHmac, salt, identity));
  const deleted = await privacy.pool.query(
    `DELETE FROM ${privacy.schema}.suppression WHERE hash = ANY($1::text[]) AND forgotten_on = $2::date`,
    [hashes, today],
  );
  const kept = await privacy.pool.query<SuppressionEntry>(
    `SELECT hash, kind, to_char(forgotten_on, 'YYYY-MM-DD') AS on FROM ${privacy.schema}.suppression WHERE hash = ANY($1::text[])`,
    [hashes],
  );
  return { undone: deleted.rowCount ?? 0, tooOld: kept.rows };
}

export interface SharedHeld {
  readonly namespace: string;
  readonly key: string;
  readonly boughtAt: Date;
  readonly outcome: string;
}

/** Every answer of any namespace whose key or outcome holds one of the matcher's identities. */
export async function heldInShared(privacy: SharedPrivacy, matcher: IdentityMatcher): Promise<SharedHeld[]> {
  const held: SharedHeld[] = [];
  await scanAnswers(privacy, (row) => {
    if (matcher.find(`${row.key}\n${row.outcome}`)) held.push(row);
  });
  return held;
}

/** Deletes every answer (and claim) that holds one of the identities; returns how many answers. */
export async function forgetInShared(privacy: SharedPrivacy, matcher: IdentityMatcher): Promise<number> {
  const matched: SharedHeld[] = [];
  await scanAnswers(privacy, (row) => {
    if (matcher.find(`${row.key}\n${row.outcome}`)) matched.push(row);
  });
  const { pool, schema } = privacy;
  let removed = 0;
  for (let i = 0; i < matched.length; i += PAGE) {
    const page = matched.slice(i, i + PAGE);
    const result = await pool.query(
      `DELETE FROM ${schema}.answers a USING unnest($1::text[], $2::text[]) AS d(namespace, key)
       WHERE a.namespace = d.namespace AND a.key = d.key`,
      [page.map((r) => r.namespace), page.map((r) => r.key)],
    );
    removed += result.rowCount ?? 0;
  }
  const claims = await pool.query<{ namespace: string; key: string }>(
    `SELECT namespace, key FROM ${schema}.claims`,
  );
  for (const claim of claims.rows) {
    if (matcher.find(claim.key)) {
      await pool.query(`DELETE FROM ${schema}.claims WHERE namespace = $1 AND key = $2`, [
        claim.namespace,
        claim.key,
      ]);
    }
  }
  return removed;
}

/** Deletes answers bought longer ago than `maxAgeMs` (the database's clock); returns how many. */
export async function pruneShared(privacy: SharedPrivacy, maxAgeMs: number): Promise<number> {
  return deleteOlder(privacy.pool, privacy.schema, maxAgeMs);
}

/** The prune the functions server runs on a schedule: see scheduled-prune.ts. */
export { pruneOnSchedule, type ScheduledPrune } from './scheduled-prune.js';

// Pages of the primary key: each page a short statement, whatever the table's size.
async function scanAnswers(privacy: SharedPrivacy, onRow: (row: SharedHeld) => void): Promise<void> {
  const { pool, schema } = privacy;
  let after: [string, string] | undefined;
  for (;;) {
    const page = await pool.query<{ namespace: string; key: string; bought_at: Date; outcome: string }>(
      `SELECT namespace, key, bought_at, outcome::text AS outcome FROM ${schema}.answers
       ${after ? 'WHERE (namespace, key) > ($2, $3)' : ''} ORDER BY namespace, key LIMIT $1`,
      after ? [PAGE, after[0], after[1]] : [PAGE],
    );
    for (const row of page.rows) {
      onRow({ namespace: row.namespace, key: row.key, boughtAt: row.bought_at, outcome: row.outcome });
    }
    const last = page.rows.at(-1);
    if (!last || page.rows.length < PAGE) return;
    after = [last.namespace, last.key];
  }
}
