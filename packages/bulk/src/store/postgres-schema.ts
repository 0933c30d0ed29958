// The PostgreSQL store's tables, created and migrated by the store itself when it opens. Every
// instance of a team opens the same store, perhaps at the same moment (a warehouse starts ten
// functions at once): the whole migration runs in one transaction under an advisory lock, so one
// instance migrates and the others, let in after it commits, find the schema at its version and do
// nothing. DDL is transactional in PostgreSQL, so a migration cut half-way leaves nothing behind.
//
// Tables, in their own schema (`enrich` unless the opener names another):
// - answers (namespace, key) -> outcome (json, not jsonb: core's Outcome byte for byte as the response reader made it, its fields in their order),
//   bought_at (when it was paid for; older than the max age, it is not used);
// - claims (namespace, key) -> holder (one front), expires_at: who is buying what now;
// - spend (month UTC, namespace, operation) -> transactions;
// - query_spend (namespace, query_id) -> transactions: what each query's budget has spent;
// - settings (namespace) -> max_transactions_per_month: the store's own monthly cap of a service,
//   which every client of the store enforces (postgres-spend.ts: the lowest set wins);
// - suppression (hash) -> kind, forgotten_on: the team's list of people forgotten (issue 38), salted
//   hashes only (core's suppression.ts), checked by every client before a paid call and by every
//   write of an answer (postgres-suppression.ts); suppression_salt: one row, the list's random salt;
// - maintenance (task) -> done_at: when a task one instance does for all (the functions server's
//   prune) was last done;
// - schema_version: the migrations applied.
//
// Version 3 made the suppression tables a migration: before it, the forget module of a client made
// them itself when it first ran (CREATE TABLE IF NOT EXISTS, outside schema_version). So version 3
// creates them only if missing and keeps a salt already there: the entries of a version 2 store that
// was already used to forget someone still refuse them.
import type pg from 'pg';
import { inTransaction } from './postgres-transaction.js';

/** A SQL identifier we put in statements as is: checked, never quoted from user text. */
export function checkSchemaName(schema: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new RangeError(`schema must be a lower-case SQL name (letters, digits, _); got "${schema}"`);
  }
}

/** Migrations by version, in order; a new one is appended, never edited once released. */
const MIGRATIONS: readonly ((s: string) => string)[] = [
  (s) => `
    CREATE TABLE ${s}.answers (
      namespace text NOT NULL,
      key text NOT NULL,
      outcome json NOT NULL,
      bought_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (namespace, key)
    );
    CREATE TABLE ${s}.claims (
      namespace text NOT NULL,
      key text NOT NULL,
      holder text NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (namespace, key)
    );
    CREATE TABLE ${s}.spend (
      month text NOT NULL,
      namespace text NOT NULL,
      operation text NOT NULL,
      transactions bigint NOT NULL DEFAULT 0 CHECK (transactions >= 0),
      PRIMARY KEY (month, namespace, operation)
    );
    CREATE TABLE ${s}.query_spend (
      namespace text NOT NULL,
      query_id text NOT NULL,
      transactions bigint NOT NULL DEFAULT 0 CHECK (transactions >= 0),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (namespace, query_id)
    );`,
  (s) => `
    CREATE TABLE ${s}.settings (
      namespace text PRIMARY KEY,
      max_transactions_per_month bigint CHECK (max_transactions_per_month >= 0),
      updated_at timestamptz NOT NULL DEFAULT now()
    );`,
  // IF NOT EXISTS and ON CONFLICT: see "Version 3" above. The salt is two random UUIDs (the server's
  // strong random source, 244 random bits) hashed to 64 hex digits, as long as the user's list's.
  (s) => `
    CREATE TABLE IF NOT EXISTS ${s}.suppression (
      hash text PRIMARY KEY,
      kind text NOT NULL,
      forgotten_on date NOT NULL
    );
    CREATE TABLE IF NOT EXISTS ${s}.suppression_salt (
      id integer PRIMARY KEY CHECK (id = 1),
      salt text NOT NULL
    );
    INSERT INTO ${s}.suppression_salt (id, salt)
      VALUES (1, encode(sha256((gen_random_uuid()::text || gen_random_uuid()::text)::bytea), 'hex'))
      ON CONFLICT DO NOTHING;
    CREATE TABLE ${s}.maintenance (
      task text PRIMARY KEY,
      done_at timestamptz NOT NULL
    );`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Creates or migrates the schema; throws when the store is newer than this build knows. */
export async function migrate(pool: pg.Pool, schema: string): Promise<void> {
  checkSchemaName(schema);
  // One transaction (postgres-transaction.ts: rolled back on failure, the connection's `error`
  // events heard while it is out of the pool).
  await inTransaction(pool, async (client) => {
    // Held until COMMIT or ROLLBACK (or the session's end): one migrating instance at a time.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [
      'enrich-migrate',
      schema,
    ]);
    const found = await client.query<{ table: string | null }>('SELECT to_regclass($1) AS table', [
      `${schema}.schema_version`,
    ]);
    let current = 0;
    if (found.rows[0]?.table == null) {
      // Only when missing: a role that may use the tables need not be allowed to create schemas.
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(
        `CREATE TABLE ${schema}.schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
    } else {
      const row = await client.query<{ version: number | null }>(
        `SELECT max(version) AS version FROM ${schema}.schema_version`,
      );
      current = row.rows[0]?.version ?? 0;
    }
    if (current > SCHEMA_VERSION) {
      throw new RangeError(
        `the store's schema ${schema} is at version ${current}, newer than this build knows (${SCHEMA_VERSION}): update enrich`,
      );
    }
    for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
      await client.query((MIGRATIONS[version - 1] as (s: string) => string)(schema));
      await client.query(`INSERT INTO ${schema}.schema_version (version) VALUES ($1)`, [version]);
    }
  });
}
