// Bulk runs through a shared answer store (store-claims.ts) on a real PostgreSQL cluster and a
// sandbox over real HTTP: two runs at once, each with its own journal (two clients), buy each
// person once; a claim that waits for another instance does not hold back the requests behind it;
// the store's cap refuses before anything is sent; a plan counts what the store holds; a store that
// fails stops the run sending.
import { join } from 'node:path';
import { requestKey, validate } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { type BulkSummary, planBulk, runBulk } from '../src/index.js';
import type { PostgresStore } from '../src/store/postgres-store.js';
import { readRecords, useSandbox, writeCsv } from './fixtures.js';
import { answerFor, freshSchema, openFront, usePostgres } from './postgres-fixtures.js';
import { op, phone, sandboxRun } from './sandbox-run.js';

const pg = usePostgres();
const at = useSandbox({ latencyMs: 5 });

const keyOf = (i: number) => {
  const checked = validate(op, { Phone: phone(i) });
  if (!checked.ok) throw new Error(checked.message);
  return requestKey(op, checked.input);
};

/** A file of the phones `from` to `to` (excluded), each once, in `name`. */
function phones(name: string, from: number, to: number): string {
  const rows = Array.from({ length: to - from }, (_, i) => [phone(from + i)]);
  return writeCsv(join(at.dir, name), [['phone'], ...rows]);
}

/** A run of `inPath` through `front`, with a journal of its own (a client of its own). */
function run(front: PostgresStore, inPath: string, name: string, more: { concurrency?: number } = {}) {
  const files = { inPath, outPath: join(at.dir, `${name}.out.csv`) };
  const options = sandboxRun(at.server, files, { concurrency: more.concurrency ?? 4 });
  return runBulk({ ...options, cachePath: join(at.dir, `${name}.jsonl`), sharedStore: front });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('bulk runs through a shared answer store', () => {
  it('two runs at once, each with its own journal, buy each person once', async () => {
    const schema = freshSchema();
    const [a, b] = await Promise.all([openFront(pg.cluster, { schema }), openFront(pg.cluster, { schema })]);
    // 0..59 and 30..89 overlap on 30 people; 90 distinct in all.
    const [first, second] = await Promise.all([
      run(a, phones('a.csv', 0, 60), 'a'),
      run(b, phones('b.csv', 30, 90), 'b'),
    ]);
    expect(at.server.sandbox.stats().transactions).toBe(90);
    expect(first.transactions + second.transactions).toBe(90);
    expect(first.fromStore + second.fromStore).toBe(30);
    for (const s of [first, second]) {
      expect(s).toMatchObject({ completed: true, ok: 60, distinct: 60, errors: 0, notSent: 0 });
      expect(s.store).toBe(a.where);
    }
    // What one run bought is in the other's output too.
    const rows = readRecords(join(at.dir, 'b.out.csv'));
    expect(rows.filter((r) => r.status === 'ok')).toHaveLength(60);
    // And in its own journal: a rerun of b without the store spends nothing.
    at.server.sandbox.reset();
    const again = await runBulk({
      ...sandboxRun(at.server, { inPath: join(at.dir, 'b.csv'), outPath: join(at.dir, 'b2.out.csv') }),
      cachePath: join(at.dir, 'b.jsonl'),
    });
    expect(again).toMatchObject({ transactions: 0, fromCache: 60 });
    expect(at.server.sandbox.stats().requests).toBe(0);
  });

  it('claims that wait for another instance do not hold back the requests behind them', async () => {
    const schema = freshSchema();
    const [run1, other] = await Promise.all([
      openFront(pg.cluster, { schema }),
      openFront(pg.cluster, { schema }),
    ]);
    // Another instance is buying the file's first 6 people (more than the 4 the run has on its way
    // at concurrency 2), and is slow about it.
    for (let i = 0; i < 6; i++) expect(await other.claim(keyOf(i))).toEqual({ kind: 'claimed' });
    const running = run(run1, phones('in.csv', 0, 30), 'run', { concurrency: 2 });
    // The other 24 are bought meanwhile.
    for (let waited = 0; at.server.sandbox.stats().transactions < 24 && waited < 10_000; waited += 20) {
      await sleep(20);
    }
    expect(at.server.sandbox.stats().transactions).toBe(24);
    // The other instance's answers arrive: the run uses them, free.
    for (let i = 0; i < 6; i++) await other.put(keyOf(i), answerFor(keyOf(i)));
    const summary = await running;
    expect(summary).toMatchObject({ completed: true, transactions: 24, fromStore: 6, ok: 30 });
    expect(at.server.sandbox.stats().transactions).toBe(24);
  });

  it("the store's monthly cap refuses before anything is sent: the rows say budget", async () => {
    const schema = freshSchema();
    const capped = await openFront(pg.cluster, { schema, maxTransactionsPerMonth: 5 });
    const summary = await run(capped, phones('in.csv', 0, 20), 'capped');
    expect(at.server.sandbox.stats().requests).toBe(5);
    expect(summary).toMatchObject({
      transactions: 5,
      ok: 5,
      notSent: 15,
      stopped: 'budget',
      storeRefused: true,
    });
    const rows = readRecords(join(at.dir, 'capped.out.csv'));
    expect(
      rows.filter((r) => /^error: not sent: budget: the shared answer store/.test(r.status ?? '')),
    ).toHaveLength(15);
    expect(await capped.spend()).toEqual([
      expect.objectContaining({ operation: 'phone-lookup', transactions: 5 }),
    ]);
    // The cap spent: a second run sends nothing at all, but still takes what the store holds.
    at.server.sandbox.reset();
    const next = await run(capped, phones('next.csv', 0, 20), 'next');
    expect(at.server.sandbox.stats().requests).toBe(0);
    expect(next).toMatchObject({ transactions: 0, fromStore: 5, ok: 5, notSent: 15, stopped: 'budget' });
  });

  it('a plan counts what the store holds as free', async () => {
    const schema = freshSchema();
    const front = await openFront(pg.cluster, { schema });
    for (let i = 0; i < 7; i++) await front.put(keyOf(i), answerFor(keyOf(i)));
    const inPath = phones('in.csv', 0, 1200);
    const options = sandboxRun(at.server, { inPath, outPath: join(at.dir, 'out.csv') });
    const plan = await planBulk({ ...options, sharedStore: front });
    expect(plan).toMatchObject({
      distinct: 1200,
      cached: 0,
      inStore: 7,
      transactions: 1193,
      store: front.where,
    });
    expect(at.server.sandbox.stats().requests).toBe(0);
  });

  it('a store that fails stops the run sending, and says why', async () => {
    const front = await openFront(pg.cluster, { schema: freshSchema() });
    await front.close();
    const summary: BulkSummary = await run(front, phones('in.csv', 0, 10), 'closed');
    expect(at.server.sandbox.stats().requests).toBe(0);
    expect(summary).toMatchObject({ transactions: 0, stopped: 'storage', notSent: 10, completed: true });
    expect(summary.storeError).toMatch(/^the shared answer store failed: postgres .* is closed$/);
    expect(summary.storeError).not.toContain(pg.cluster.password);
  });
});
