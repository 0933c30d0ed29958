// The shared store's suppression list (issue 38) as the store's writes see it: a paid answer whose
// request holds a person forgotten in the store is not kept (postgres-held.ts writes it with the
// check below, in the same transaction as the write). The list's tables are made by the store's
// migration (postgres-schema.ts); forget/postgres-privacy.ts adds to them.
//
// Why a lock as well as the check: a write checks the list in its INSERT, but an INSERT whose
// snapshot was taken just before a forget committed does not see the forget's entry, and could
// commit after the forget scanned the answers. So every write holds this lock shared for its
// transaction and a forget adds its entries holding it exclusively: a write either committed before
// the forget's entries (and the forget's scan, which starts after them, finds and deletes its
// answer) or starts after them (and sees them, and keeps nothing). A forget that commits first wins.
import { requestIdentities, requestOfKey, suppressionHash } from '@enrich/core';
import type pg from 'pg';
import { nodeHmac } from '../forget/suppression-file.js';
import { checkSchemaName } from './postgres-schema.js';

/**
 * The statement that takes the list's lock for the transaction: `shared` by writes of answers,
 * exclusive by a forget. Without parameters (the schema is a checked SQL name, postgres-schema.ts),
 * so that it goes with the BEGIN in one round trip (postgres-transaction.ts).
 */
export function suppressionLock(schema: string, mode: 'shared' | 'exclusive'): string {
  checkSchemaName(schema);
  const fn = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  return `SELECT ${fn}(hashtext('enrich-suppression'), hashtext('${schema}'))`;
}

/** The list's salt (made by the migration, never changed: every hash in the list depends on it). */
export async function readSalt(pool: pg.Pool | pg.PoolClient, schema: string): Promise<string> {
  const rows = await pool.query<{ salt: string }>(`SELECT salt FROM ${schema}.suppression_salt WHERE id = 1`);
  const salt = rows.rows[0]?.salt;
  if (salt === undefined)
    throw new Error(`the store's suppression list has no salt (${schema}.suppression_salt)`);
  return salt;
}

/**
 * The hashes, under the list's salt, of the identities a request key holds (core's requestKey:
 * `<operation>:[[field, value], ...]` of the clean input), as the list keeps them; none for a key
 * that is not core's.
 */
export function keyHashes(key: string, salt: string): string[] {
  const request = requestOfKey(key);
  if (request === undefined) return [];
  return requestIdentities(request.op, request.input).map((identity) =>
    suppressionHash(nodeHmac, salt, identity),
  );
}

/**
 * `NOT EXISTS` an entry of the list among the hashes of a row (parameter text, hashes joined by
 * commas: hex never holds one): the condition a write keeps an answer under.
 */
export function notSuppressed(schema: string, hashes: string): string {
  return `NOT EXISTS (SELECT 1 FROM ${schema}.suppression p WHERE p.hash = ANY(string_to_array(${hashes}, ',')))`;
}
