// The store front over the journal (store/journal-front.ts) and the chooser (store/open-store.ts):
// claims within one process, the monthly cap and query budgets in memory, spend rows, and the URL
// rules of ENRICH_STORE / --store.
import { join } from 'node:path';
import type { Outcome } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { JournalFront } from '../src/store/journal-front.js';
import { openStore } from '../src/store/open-store.js';
import { describePostgresUrl } from '../src/store/store-url.js';
import { tempDir } from './fixtures.js';

const noMatch: Outcome = { kind: 'no-match', status: 204 };
const NS = 'sandbox';

function openFront(options: { maxTransactionsPerMonth?: number; now?: () => number } = {}) {
  const front = JournalFront.open({
    path: join(tempDir(), 'answers.jsonl'),
    namespace: NS,
    maxAgeMs: Number.POSITIVE_INFINITY,
    syncIntervalMs: 0,
    ...options,
  });
  return front;
}

const settled = async (promise: Promise<unknown>) => {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  return done;
};

describe('claims in one process', () => {
  it('grants the first claimer; a second waits for its put and gets the answer', async () => {
    const front = openFront();
    expect(await front.claim('k1')).toEqual({ kind: 'claimed' });
    const second = front.claim('k1');
    expect(await settled(second)).toBe(false);
    await front.put('k1', noMatch);
    expect(await second).toEqual({ kind: 'answer', outcome: noMatch });
    expect(await front.getMany(['k1', 'k2'])).toEqual(new Map([['k1', noMatch]]));
    await front.close();
  });

  it('a release lets exactly one waiter claim; the others wait for it', async () => {
    const front = openFront();
    await front.claim('k');
    const waiters = [front.claim('k'), front.claim('k'), front.claim('k')];
    await front.release('k');
    const first = await Promise.race(waiters);
    expect(first).toEqual({ kind: 'claimed' });
    expect(await settled(Promise.all(waiters))).toBe(false);
    await front.put('k', noMatch);
    const results = await Promise.all(waiters);
    expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'answer')).toHaveLength(2);
    await front.close();
  });

  it('a waiter stops at its signal', async () => {
    const front = openFront();
    await front.claim('k');
    const controller = new AbortController();
    const waiting = front.claim('k', { signal: controller.signal });
    controller.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    await front.close();
  });

  it('answers survive a reopen of the journal (the same file)', async () => {
    const path = join(tempDir(), 'answers.jsonl');
    const options = { path, namespace: NS, maxAgeMs: Number.POSITIVE_INFINITY };
    const front = JournalFront.open(options);
    await front.claim('k');
    await front.put('k', noMatch);
    await front.close();
    const again = JournalFront.open(options);
    expect(await again.claim('k')).toEqual({ kind: 'answer', outcome: noMatch });
    await again.close();
  });
});

describe('reserve and refund in memory', () => {
  it('never grants past the monthly cap; a refund gives room back', async () => {
    const front = openFront({ maxTransactionsPerMonth: 10 });
    expect(await front.reserve({ operation: 'phone-lookup', count: 6 })).toBe(6);
    expect(await front.reserve({ operation: 'email-verify', count: 6 })).toBe(4);
    expect(await front.reserve({ operation: 'phone-lookup', count: 1 })).toBe(0);
    await front.refund({ operation: 'email-verify', count: 2 });
    expect(await front.reserve({ operation: 'phone-lookup', count: 5 })).toBe(2);
    await front.close();
  });

  it('a query budget caps its own spend; other queries are not touched by it', async () => {
    const front = openFront();
    const q1 = { id: 'job-1', limit: 3 };
    expect(await front.reserve({ operation: 'phone-lookup', count: 2, query: q1 })).toBe(2);
    expect(await front.reserve({ operation: 'phone-lookup', count: 2, query: q1 })).toBe(1);
    expect(
      await front.reserve({ operation: 'phone-lookup', count: 2, query: { id: 'job-2', limit: 5 } }),
    ).toBe(2);
    await front.close();
  });

  it('records spend rows per month and operation; a new month starts the cap again', async () => {
    let now = Date.UTC(2026, 10, 30, 23, 59);
    const front = openFront({ maxTransactionsPerMonth: 5, now: () => now });
    await front.reserve({ operation: 'phone-lookup', count: 4 });
    expect(await front.reserve({ operation: 'email-verify', count: 3 })).toBe(1);
    await front.refund({ operation: 'phone-lookup', count: 1 });
    now = Date.UTC(2026, 11, 1, 0, 1);
    expect(await front.reserve({ operation: 'phone-lookup', count: 5 })).toBe(5);
    expect(await front.spend()).toEqual([
      { month: '2026-11', namespace: NS, operation: 'email-verify', transactions: 1 },
      { month: '2026-11', namespace: NS, operation: 'phone-lookup', transactions: 3 },
      { month: '2026-12', namespace: NS, operation: 'phone-lookup', transactions: 5 },
    ]);
    await front.close();
  });

  it('refuses a bad request with the field and the rule, reserving nothing', async () => {
    const front = openFront({ maxTransactionsPerMonth: 5 });
    await expect(front.reserve({ operation: 'phone-lookup', count: -1 })).rejects.toThrow(/count must be/);
    await expect(
      front.reserve({ operation: 'phone-lookup', count: 1, query: { id: '', limit: 1 } }),
    ).rejects.toThrow(/query.id/);
    expect(await front.spend()).toEqual([]);
    await front.close();
  });
});

describe('openStore', () => {
  const journal = () => ({ path: join(tempDir(), 'answers.jsonl') });
  const common = { namespace: NS, maxAgeMs: Number.POSITIVE_INFINITY };

  it('opens the journal when no URL is given', async () => {
    const front = await openStore(undefined, { ...common, journal: journal() });
    expect(front.where).toMatch(/^the journal .*answers\.jsonl$/);
    await front.close();
  });

  it('refuses another scheme naming ENRICH_STORE / --store and the forms, never the password', async () => {
    const attempt = openStore('mysql://me:s3cret-pw@db/x', { ...common, journal: journal() });
    await expect(attempt).rejects.toThrow(/ENRICH_STORE \/ --store must be a PostgreSQL URL, postgres:\/\//);
    await expect(attempt).rejects.not.toThrow(/s3cret-pw/);
    await expect(openStore('/tmp/answers', { ...common, journal: journal() })).rejects.toThrow(/not a URL/);
  });

  it('says where a PostgreSQL store is without its password', () => {
    expect(describePostgresUrl('postgresql://enrich:s3cret-pw@db.example:6543/answers')).toBe(
      'postgres enrich@db.example:6543/answers',
    );
  });
});
