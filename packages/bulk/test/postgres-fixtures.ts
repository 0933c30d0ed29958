// Shared by the PostgreSQL store's tests: one real cluster per test file (postgres-cluster.ts), a
// schema of its own for each front a test opens (so tests never see each other's rows), and the
// purchase path every client follows (claim, buy, put) with a counter of what was bought.
import type { Outcome } from '@enrich/core';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { PostgresStore, type PostgresStoreOptions } from '../src/store/postgres-store.js';
import type { StoreFront } from '../src/store/store-front.js';
import { type PostgresCluster, queryAt, startPostgresCluster } from './postgres-cluster.js';

export const NS = 'sandbox';

/** A cluster for the calling test file. */
export function usePostgres(): { readonly cluster: PostgresCluster } {
  const at = { cluster: undefined as unknown as PostgresCluster };
  beforeAll(async () => {
    at.cluster = await startPostgresCluster();
  }, 60_000);
  afterAll(() => at.cluster?.remove());
  return at;
}

let schemas = 0;
/** A schema name no other test of this process uses. */
export function freshSchema(): string {
  schemas++;
  return `t${process.pid}_${schemas}`;
}

/** Opens a front (its own pool), closed when the test ends. */
export async function openFront(
  cluster: PostgresCluster,
  options: Partial<PostgresStoreOptions> & { schema: string },
): Promise<PostgresStore> {
  const front = await PostgresStore.open({
    url: cluster.url,
    namespace: NS,
    maxAgeMs: Number.POSITIVE_INFINITY,
    pollMs: 10,
    ...options,
  });
  onTestFinished(() => front.close().catch(() => {}));
  return front;
}

export const answerFor = (key: string): Outcome => ({
  kind: 'record',
  status: 200,
  record: {},
  extra: { Bought: key },
  mismatches: [],
  raw: JSON.stringify({ bought: key }),
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The purchase path: the answer kept, or the claim, a "purchase" (counted, taking `buyMs`), the
 * answer put. Returns the outcome the caller ends with.
 */
export async function answer(
  front: StoreFront,
  key: string,
  purchases: Map<string, number>,
  buyMs = 5,
): Promise<Outcome> {
  const claim = await front.claim(key);
  if (claim.kind === 'answer') return claim.outcome;
  purchases.set(key, (purchases.get(key) ?? 0) + 1);
  await sleep(Math.random() * buyMs);
  const outcome = answerFor(key);
  await front.put(key, outcome);
  return outcome;
}

/** Runs `work` over `items`, `concurrency` at a time. */
export async function inParallel<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
) {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

/** Whether a promise is still pending after `ms`. */
export async function pendingAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await sleep(ms);
  return !settled;
}

/** Runs one statement on a connection of its own. */
export const sqlAt = queryAt;

/** Every row of every table of the schema, as text: what a byte scan of the store reads. */
export async function tableText(url: string, schema: string): Promise<string> {
  const tables = await sqlAt<{ table_name: string }>(
    url,
    'SELECT table_name FROM information_schema.tables WHERE table_schema = $1',
    [schema],
  );
  let text = '';
  for (const { table_name } of tables) {
    const rows = await sqlAt<{ row: string }>(url, `SELECT t::text AS row FROM ${schema}.${table_name} t`);
    text += `${rows.map((r) => r.row).join('\n')}\n`;
  }
  return text;
}
