// The store's schema version 3 (store/postgres-schema.ts) on a real cluster of its own: the
// suppression list's tables and the maintenance row are the store's migration, so one version
// describes the database; the forget module (forget/postgres-privacy.ts) makes no table of its own.
// A version 2 store is migrated: one whose suppression tables an earlier build's forget had made
// itself keeps them, its salt and its entries (the person stays refused, and a write of them is not
// kept); one that never forgot anyone gets them. Ten fronts opening a version 2 store at once
// migrate it once.
import { getOperation, requestKey, suppressionHash } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { closeSharedPrivacy, openSharedPrivacy } from '../src/forget/postgres-privacy.js';
import { nodeHmac, readSharedSuppression } from '../src/index.js';
import { SCHEMA_VERSION } from '../src/store/postgres-schema.js';
import { PostgresStore } from '../src/store/postgres-store.js';
import { answerFor, freshSchema, NS, openFront, sqlAt, usePostgres } from './postgres-fixtures.js';

const at = usePostgres();
const lookup = getOperation('phone-lookup');
const PHONE = '5550102030';
const sql = (query: string, values: unknown[] = []) => sqlAt(at.cluster.url, query, values);

async function tables(schema: string): Promise<string[]> {
  const rows = await sqlAt<{ table_name: string }>(
    at.cluster.url,
    'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
    [schema],
  );
  return rows.map((r) => r.table_name);
}

async function versions(schema: string): Promise<number[]> {
  const rows = await sqlAt<{ version: number }>(
    at.cluster.url,
    `SELECT version FROM ${schema}.schema_version ORDER BY version`,
  );
  return rows.map((r) => r.version);
}

/** The schema as a version 2 build left it: without version 3's tables (the forget's made after). */
async function versionTwo(schema: string): Promise<void> {
  const front = await openFront(at.cluster, { schema });
  await front.close();
  await sql(`DROP TABLE ${schema}.suppression, ${schema}.suppression_salt, ${schema}.maintenance`);
  await sql(`DELETE FROM ${schema}.schema_version WHERE version = 3`);
}

const ALL_TABLES = [
  'answers',
  'claims',
  'maintenance',
  'query_spend',
  'schema_version',
  'settings',
  'spend',
  'suppression',
  'suppression_salt',
];

describe("the store's schema, version 3", () => {
  it('a new store gets the suppression tables and a salt from the migration; forget makes none', async () => {
    const schema = freshSchema();
    expect(SCHEMA_VERSION).toBe(3);
    await openFront(at.cluster, { schema });
    expect(await tables(schema)).toEqual(ALL_TABLES);
    expect(await versions(schema)).toEqual([1, 2, 3]);
    const salt = await sql(`SELECT salt FROM ${schema}.suppression_salt`);
    expect(salt).toHaveLength(1);
    expect(salt[0]?.salt).toMatch(/^[0-9a-f]{64}$/);
    const privacy = await openSharedPrivacy(at.cluster.url, schema);
    await closeSharedPrivacy(privacy);
    expect(await tables(schema)).toEqual(ALL_TABLES);
    // Another store's salt is its own.
    const other = freshSchema();
    await openFront(at.cluster, { schema: other });
    expect((await sql(`SELECT salt FROM ${other}.suppression_salt`))[0]?.salt).not.toBe(salt[0]?.salt);
  });

  it('a version 2 store whose forget made the tables keeps its salt and entries: the person stays forgotten', async () => {
    const schema = freshSchema();
    await versionTwo(schema);
    // What the forget of a version 2 build made, as it made it, and one person it forgot.
    await sql(`CREATE TABLE ${schema}.suppression (
      hash text PRIMARY KEY, kind text NOT NULL, forgotten_on date NOT NULL)`);
    await sql(`CREATE TABLE ${schema}.suppression_salt (
      id integer PRIMARY KEY CHECK (id = 1), salt text NOT NULL)`);
    const oldSalt = 'a'.repeat(64);
    await sql(`INSERT INTO ${schema}.suppression_salt VALUES (1, $1)`, [oldSalt]);
    const hash = suppressionHash(nodeHmac, oldSalt, { kind: 'phone', value: PHONE });
    await sql(`INSERT INTO ${schema}.suppression VALUES ($1, 'phone', '2026-11-01')`, [hash]);

    const front = await openFront(at.cluster, { schema });
    expect(await versions(schema)).toEqual([1, 2, 3]);
    expect(await tables(schema)).toEqual(ALL_TABLES);
    expect(await sql(`SELECT salt FROM ${schema}.suppression_salt`)).toEqual([{ salt: oldSalt }]);
    const check = await readSharedSuppression(at.cluster.url, schema);
    expect(check.refusal(lookup, { Phone: PHONE })).toBe(
      "forgotten at the person's request on 2026-11-01; nothing was sent",
    );
    // A write of the person is checked against the old entry, under the old salt.
    const key = requestKey(lookup, { Phone: PHONE });
    await front.claim(key);
    await front.put(key, answerFor(key));
    expect(await sql(`SELECT key FROM ${schema}.answers`)).toEqual([]);
  });

  it('a version 2 store that never forgot anyone gets the tables and a salt', async () => {
    const schema = freshSchema();
    await versionTwo(schema);
    expect(await tables(schema)).not.toContain('suppression');
    await openFront(at.cluster, { schema });
    expect(await tables(schema)).toEqual(ALL_TABLES);
    expect((await sql(`SELECT salt FROM ${schema}.suppression_salt`))[0]?.salt).toMatch(/^[0-9a-f]{64}$/);
    expect((await readSharedSuppression(at.cluster.url, schema)).size).toBe(0);
  });

  it('ten fronts opening a version 2 store at once migrate it once', async () => {
    const schema = freshSchema();
    await versionTwo(schema);
    const fronts = await Promise.all(
      Array.from({ length: 10 }, () =>
        PostgresStore.open({
          url: at.cluster.url,
          namespace: NS,
          maxAgeMs: Number.POSITIVE_INFINITY,
          schema,
        }),
      ),
    );
    await Promise.all(fronts.map((front) => front.close()));
    expect(await versions(schema)).toEqual([1, 2, 3]);
    expect(await sql(`SELECT count(*)::int AS n FROM ${schema}.suppression_salt`)).toEqual([{ n: 1 }]);
  });
});
