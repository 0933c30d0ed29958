// The shared store's prune on a schedule (forget/scheduled-prune.ts, as the functions server runs it
// through pruneSharedOnSchedule), on a real cluster of its own: answers older than the max age go by
// the database's clock, the rest stay; two instances at once prune once; an instance whose turn comes
// soon after another's prune leaves it; one that finds another pruning leaves it; a store out of
// reach fails with StoreUnavailable, without the password.
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { pruneSharedOnSchedule } from '../src/index.js';
import { StoreUnavailable } from '../src/store/store-front.js';
import { answerFor, freshSchema, openFront, sqlAt, usePostgres } from './postgres-fixtures.js';

const at = usePostgres();
const DAY = 86_400_000;
const HOUR = 3_600_000;
const sql = (query: string, values: unknown[] = []) => sqlAt(at.cluster.url, query, values);

/** A store with `old` answers bought 31 days ago and 2 bought now. */
async function filled(old: number): Promise<string> {
  const schema = freshSchema();
  const front = await openFront(at.cluster, { schema });
  for (let i = 0; i < old + 2; i++) {
    await front.claim(`k${i}`);
    await front.put(`k${i}`, answerFor(`k${i}`));
  }
  await sql(`UPDATE ${schema}.answers SET bought_at = now() - interval '31 days' WHERE key <> ALL($1)`, [
    [`k${old}`, `k${old + 1}`],
  ]);
  return schema;
}

async function keys(schema: string): Promise<string[]> {
  return (await sql(`SELECT key FROM ${schema}.answers ORDER BY key`)).map((r) => r.key);
}

describe('the shared store pruned on a schedule', () => {
  it('deletes what is older than the max age, once for two instances at once, then not again soon', async () => {
    const schema = await filled(5);
    const both = await Promise.all([
      pruneSharedOnSchedule(at.cluster.url, 30 * DAY, HOUR, schema),
      pruneSharedOnSchedule(at.cluster.url, 30 * DAY, HOUR, schema),
    ]);
    expect(both.filter((r) => r.kind === 'pruned')).toEqual([{ kind: 'pruned', removed: 5 }]);
    expect(both.filter((r) => r.kind === 'skipped')).toHaveLength(1);
    expect(await keys(schema)).toEqual(['k5', 'k6']);

    await sql(`UPDATE ${schema}.answers SET bought_at = now() - interval '31 days' WHERE key = 'k5'`);
    expect(await pruneSharedOnSchedule(at.cluster.url, 30 * DAY, HOUR, schema)).toEqual({
      kind: 'skipped',
      why: 'recent',
    });
    // Half an interval later, an instance's turn prunes again.
    await sql(`UPDATE ${schema}.maintenance SET done_at = now() - interval '31 minutes'`);
    expect(await pruneSharedOnSchedule(at.cluster.url, 30 * DAY, HOUR, schema)).toEqual({
      kind: 'pruned',
      removed: 1,
    });
    expect(await keys(schema)).toEqual(['k6']);
  });

  it('leaves the prune to the instance pruning now', async () => {
    const schema = await filled(1);
    const other = new pg.Client({ connectionString: at.cluster.url });
    await other.connect();
    onTestFinished(() => other.end().catch(() => {}));
    await other.query('BEGIN');
    await other.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', ['enrich-prune', schema]);
    expect(await pruneSharedOnSchedule(at.cluster.url, 30 * DAY, HOUR, schema)).toEqual({
      kind: 'skipped',
      why: 'busy',
    });
    await other.query('ROLLBACK');
    expect(await pruneSharedOnSchedule(at.cluster.url, 30 * DAY, HOUR, schema)).toEqual({
      kind: 'pruned',
      removed: 1,
    });
  });

  it('fails with StoreUnavailable when the store is out of reach, without the password', async () => {
    const url = at.cluster.url.replace(`:${at.cluster.port}/`, ':1/');
    const failure = await pruneSharedOnSchedule(url, 30 * DAY, HOUR).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreUnavailable);
    expect((failure as Error).message).not.toContain(at.cluster.password);
  });
});
