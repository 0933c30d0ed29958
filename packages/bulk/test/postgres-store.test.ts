// The PostgreSQL store (store/postgres-store.ts) against a real cluster of its own: four instances
// asked overlapping keys at once buy each once; a release hands the key on; the max age; the schema
// made by concurrent opens; reserve never past the monthly cap or a query's budget under
// concurrency; the spend table; errors that never hold the password.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../src/store/postgres-store.js';
import { StoreUnavailable } from '../src/store/store-front.js';
import {
  answer,
  answerFor,
  freshSchema,
  inParallel,
  NS,
  openFront,
  pendingAfter,
  usePostgres,
} from './postgres-fixtures.js';

const at = usePostgres();

async function sql(query: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: at.cluster.url });
  await client.connect();
  try {
    return (await client.query(query, values)).rows;
  } finally {
    await client.end();
  }
}

const thisMonth = () => new Date().toISOString().slice(0, 7);

describe('claims across instances', () => {
  it('four instances answering overlapping keys at once buy each key once', async () => {
    const schema = freshSchema();
    const fronts = await Promise.all([1, 2, 3, 4].map(() => openFront(at.cluster, { schema, poolSize: 4 })));
    const keys = Array.from({ length: 120 }, (_, i) => `phone-lookup|555${String(i).padStart(7, '0')}`);
    const purchases = new Map<string, number>();
    const answered = new Map<string, string[]>();
    // Each instance gets three quarters of the keys, in its own order: every key is asked 3 times.
    await Promise.all(
      fronts.map((front, f) => {
        const mine = keys.filter((_, i) => i % 4 !== f).sort(() => Math.random() - 0.5);
        return inParallel(mine, 12, async (key) => {
          const outcome = await answer(front, key, purchases, 20);
          answered.set(key, [...(answered.get(key) ?? []), JSON.stringify(outcome)]);
        });
      }),
    );
    expect([...purchases.values()].every((n) => n === 1)).toBe(true);
    expect(purchases.size).toBe(keys.length);
    for (const key of keys) expect(answered.get(key)).toEqual(Array(3).fill(JSON.stringify(answerFor(key))));
    const [{ count }] = (await sql(`SELECT count(*)::int AS count FROM ${schema}.answers`)) as [
      { count: number },
    ];
    expect(count).toBe(keys.length);
    expect(await sql(`SELECT * FROM ${schema}.claims`)).toEqual([]);
  }, 30_000);

  it('a second instance waits for the holder; a release lets it buy', async () => {
    const schema = freshSchema();
    const [a, b] = [await openFront(at.cluster, { schema }), await openFront(at.cluster, { schema })];
    expect(await a.claim('k')).toEqual({ kind: 'claimed' });
    const waiting = b.claim('k');
    expect(await pendingAfter(waiting, 200)).toBe(true);
    await a.release('k');
    expect(await waiting).toEqual({ kind: 'claimed' });
    const third = a.claim('k');
    expect(await pendingAfter(third, 100)).toBe(true);
    await b.put('k', answerFor('k'));
    expect(await third).toEqual({ kind: 'answer', outcome: answerFor('k') });
  });

  it('a claim asked while the holder commits its answer gets the answer, not the claim', async () => {
    const schema = freshSchema();
    const [a, b] = [await openFront(at.cluster, { schema }), await openFront(at.cluster, { schema })];
    await a.claim('k');
    // The holder's put, caught between its statement and its COMMIT: B's claim waits on the row.
    const holder = new pg.Client({ connectionString: at.cluster.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`INSERT INTO ${schema}.answers (namespace, key, outcome) VALUES ($1, 'k', $2)`, [
        NS,
        JSON.stringify(answerFor('k')),
      ]);
      await holder.query(`DELETE FROM ${schema}.claims WHERE key = 'k'`);
      const asked = b.claim('k');
      expect(await pendingAfter(asked, 200)).toBe(true);
      await holder.query('COMMIT');
      expect(await asked).toEqual({ kind: 'answer', outcome: answerFor('k') });
    } finally {
      await holder.end();
    }
    expect(await sql(`SELECT * FROM ${schema}.claims`)).toEqual([]);
  });

  it('a wait stops at its signal', async () => {
    const schema = freshSchema();
    const [a, b] = [await openFront(at.cluster, { schema }), await openFront(at.cluster, { schema })];
    await a.claim('k');
    const controller = new AbortController();
    const waiting = b.claim('k', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stopped')), 50);
    await expect(waiting).rejects.toThrow('stopped');
  });
});

describe('answers', () => {
  it('are not used past the max age, and are bought again then', async () => {
    const schema = freshSchema();
    const day = 86_400_000;
    const front = await openFront(at.cluster, { schema, maxAgeMs: day });
    const forever = await openFront(at.cluster, { schema });
    await front.claim('old');
    await front.put('old', answerFor('old'));
    await front.claim('new');
    await front.put('new', answerFor('new'));
    await sql(`UPDATE ${schema}.answers SET bought_at = now() - interval '2 days' WHERE key = 'old'`);
    expect([...(await front.getMany(['old', 'new'])).keys()]).toEqual(['new']);
    expect([...(await forever.getMany(['old', 'new'])).keys()].sort()).toEqual(['new', 'old']);
    expect(await front.claim('old')).toEqual({ kind: 'claimed' });
    await front.put('old', answerFor('old'));
    expect([...(await front.getMany(['old'])).keys()]).toEqual(['old']);
  });

  it('are kept per namespace: another service does not see them', async () => {
    const schema = freshSchema();
    const front = await openFront(at.cluster, { schema });
    const other = await openFront(at.cluster, { schema, namespace: 'https://api.example' });
    await front.claim('k');
    await front.put('k', answerFor('k'));
    expect((await other.getMany(['k'])).size).toBe(0);
    expect(await other.claim('k')).toEqual({ kind: 'claimed' });
  });
});

describe('the schema', () => {
  it('is created by the first of many instances opening at once; the others find it', async () => {
    const schema = freshSchema();
    await Promise.all(Array.from({ length: 6 }, () => openFront(at.cluster, { schema, poolSize: 2 })));
    expect(await sql(`SELECT version FROM ${schema}.schema_version ORDER BY version`)).toEqual([
      { version: 1 },
      { version: 2 },
      { version: 3 },
    ]);
  }, 30_000);

  it('refuses a store newer than this build', async () => {
    const schema = freshSchema();
    await openFront(at.cluster, { schema });
    await sql(`INSERT INTO ${schema}.schema_version (version) VALUES (99)`);
    await expect(openFront(at.cluster, { schema })).rejects.toThrow(
      /version 99, newer than this build knows/,
    );
  });
});

describe('money across instances', () => {
  it('reserve under concurrency never overshoots the monthly cap', async () => {
    const schema = freshSchema();
    const fronts = await Promise.all(
      [1, 2, 3, 4].map(() => openFront(at.cluster, { schema, poolSize: 5, maxTransactionsPerMonth: 100 })),
    );
    const grants: number[] = [];
    await Promise.all(
      fronts.map((front, f) =>
        inParallel(
          Array.from({ length: 40 }, (_, i) => 1 + ((i + f) % 5)),
          5,
          async (count) => {
            grants.push(await front.reserve({ operation: 'phone-lookup', count }));
          },
        ),
      ),
    );
    expect(grants.reduce((a, b) => a + b, 0)).toBe(100);
    expect(await fronts[0]?.spend()).toEqual([
      { month: thisMonth(), namespace: NS, operation: 'phone-lookup', transactions: 100 },
    ]);
    await fronts[1]?.refund({ operation: 'phone-lookup', count: 3 });
    expect(await fronts[2]?.reserve({ operation: 'phone-lookup', count: 10 })).toBe(3);
  }, 30_000);

  it('keeps the monthly cap in the store: every front enforces it, given it or not; the lowest set wins', async () => {
    const schema = freshSchema();
    const reserve = (front: PostgresStore, count: number) =>
      front.reserve({ operation: 'phone-lookup', count });
    // Opened before any cap was set, and never given one.
    const early = await openFront(at.cluster, { schema });
    expect(await reserve(early, 2)).toBe(2);
    const setter = await openFront(at.cluster, { schema, maxTransactionsPerMonth: 5 });
    const late = await openFront(at.cluster, { schema });
    expect(await reserve(early, 2)).toBe(2);
    expect(await reserve(late, 4)).toBe(1);
    expect(await reserve(setter, 1)).toBe(0);
    // A higher cap does not loosen it; a lower one tightens it.
    const higher = await openFront(at.cluster, { schema, maxTransactionsPerMonth: 100 });
    expect(await reserve(higher, 1)).toBe(0);
    expect(await late.monthlyCaps()).toEqual([{ namespace: NS, maxTransactionsPerMonth: 5 }]);
    await openFront(at.cluster, { schema, maxTransactionsPerMonth: 3 });
    expect(await early.monthlyCaps()).toEqual([{ namespace: NS, maxTransactionsPerMonth: 3 }]);
    // Raised by hand (the README's UPDATE): every front follows.
    await sql(`UPDATE ${schema}.settings SET max_transactions_per_month = 8 WHERE namespace = $1`, [NS]);
    expect(await reserve(early, 10)).toBe(3);
    // Per service: another namespace of the store has no cap.
    const elsewhere = await openFront(at.cluster, { schema, namespace: 'https://api.example' });
    expect(await reserve(elsewhere, 50)).toBe(50);
    expect(await elsewhere.monthlyCaps()).toEqual([{ namespace: NS, maxTransactionsPerMonth: 8 }]);
  });

  it('a reservation made while a cap is being set waits for it, then obeys it', async () => {
    const schema = freshSchema();
    const front = await openFront(at.cluster, { schema });
    expect(await front.reserve({ operation: 'phone-lookup', count: 1 })).toBe(1);
    // Another client setting the cap, caught between its UPDATE and its COMMIT.
    const setter = new pg.Client({ connectionString: at.cluster.url });
    await setter.connect();
    try {
      await setter.query('BEGIN');
      await setter.query(
        `UPDATE ${schema}.settings SET max_transactions_per_month = 1 WHERE namespace = $1`,
        [NS],
      );
      const reserving = front.reserve({ operation: 'phone-lookup', count: 1 });
      expect(await pendingAfter(reserving, 300)).toBe(true);
      await setter.query('COMMIT');
      expect(await reserving).toBe(0);
    } finally {
      await setter.end();
    }
  });

  it("a query's budget holds across instances; other queries and the cap are apart", async () => {
    const schema = freshSchema();
    const fronts = await Promise.all([1, 2, 3].map(() => openFront(at.cluster, { schema, poolSize: 4 })));
    const query = { id: 'bquxjob_1', limit: 37 };
    const grants: number[] = [];
    await Promise.all(
      fronts.map((front) =>
        inParallel(Array(30).fill(2), 4, async (count) => {
          grants.push(await front.reserve({ operation: 'email-verify', count, query }));
        }),
      ),
    );
    expect(grants.reduce((a, b) => a + b, 0)).toBe(37);
    expect(
      await fronts[0]?.reserve({ operation: 'email-verify', count: 5, query: { id: 'bquxjob_2', limit: 5 } }),
    ).toBe(5);
  }, 30_000);

  it('records every purchase per month, namespace and operation; a refund gives back', async () => {
    const schema = freshSchema();
    const front = await openFront(at.cluster, { schema });
    const other = await openFront(at.cluster, { schema, namespace: 'https://api.example' });
    expect(await front.reserve({ operation: 'phone-lookup', count: 3 })).toBe(3);
    expect(await front.reserve({ operation: 'email-verify', count: 2 })).toBe(2);
    expect(await other.reserve({ operation: 'phone-lookup', count: 4 })).toBe(4);
    await front.refund({ operation: 'phone-lookup', count: 1 });
    await sql(`INSERT INTO ${schema}.spend VALUES ('2026-01', $1, 'phone-lookup', 7)`, [NS]);
    expect(await other.spend()).toEqual([
      { month: '2026-01', namespace: NS, operation: 'phone-lookup', transactions: 7 },
      { month: thisMonth(), namespace: 'https://api.example', operation: 'phone-lookup', transactions: 4 },
      { month: thisMonth(), namespace: NS, operation: 'email-verify', transactions: 2 },
      { month: thisMonth(), namespace: NS, operation: 'phone-lookup', transactions: 2 },
    ]);
  });

  it('refuses a bad request naming the field, reserving nothing', async () => {
    const front = await openFront(at.cluster, { schema: freshSchema() });
    await expect(front.reserve({ operation: 'phone-lookup', count: 1.5 })).rejects.toThrow(/count must be/);
    expect(await front.spend()).toEqual([]);
  });
});

describe('what it says', () => {
  it('says where it is without the password, and so do its errors', async () => {
    const front = await openFront(at.cluster, { schema: freshSchema() });
    expect(front.where).toBe(`postgres postgres@127.0.0.1:${at.cluster.port}/enrich_test`);
    const wrong = at.cluster.url.replace(`:${at.cluster.port}/`, ':1/');
    const error = await PostgresStore.open({
      url: wrong,
      namespace: NS,
      maxAgeMs: 1,
      retryDelayMs: 10,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailable);
    expect((error as StoreUnavailable).message).toMatch(
      /^postgres postgres@127\.0\.0\.1:1\/enrich_test: opening/,
    );
    expect((error as StoreUnavailable).code).toBe('ECONNREFUSED');
    expect(JSON.stringify(error) + String(error)).not.toContain(at.cluster.password);
  });
});
