// Paid answers the PostgreSQL store could not write (store/postgres-held.ts), against a real cluster
// that is stopped and started again: the timer writes a held answer once the database is back, with
// no further put, and its claim stays this front's meanwhile (another front waits, and gets the
// answer, never the claim); what is still held at close is set aside in a rescue file that the next
// open writes to the store; when even that fails, close says what is lost without a key or a row.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { AnswerStore } from '../src/store/answer-store.js';
import { postgresRescueName } from '../src/store/postgres-held.js';
import { StoreUnavailable } from '../src/store/store-front.js';
import { describePostgresUrl } from '../src/store/store-url.js';
import { answerFor, freshSchema, NS, openFront, usePostgres } from './postgres-fixtures.js';

const at = usePostgres();

/** A request key as core makes it: the phone in it is the personal data no message may hold. */
const PHONE = '5550102030';
const KEY = `phone-lookup:[["Phone","${PHONE}"]]`;

async function keptKeys(schema: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: at.cluster.url });
  await client.connect();
  try {
    const result = await client.query<{ key: string }>(`SELECT key FROM ${schema}.answers ORDER BY key`);
    return result.rows.map((row) => row.key);
  } finally {
    await client.end();
  }
}

/** Stops the cluster for the rest of the test (started again at its end if the test did not). */
async function outage(): Promise<{ end: () => Promise<void> }> {
  await at.cluster.stop();
  let down = true;
  const end = async () => {
    if (!down) return;
    down = false;
    await at.cluster.start();
  };
  onTestFinished(end);
  return { end };
}

function rescueDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-held-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('a paid answer whose put failed', () => {
  it('is written by the timer once the database is back, with no further put; nobody else gets its claim', async () => {
    const schema = freshSchema();
    // The claim's life is shorter than the wait for the flush: unless it is renewed while held,
    // it expires, and the other front is granted it (and would buy the answer again).
    const ttlMs = 6000;
    const options = { schema, claimTtlMs: ttlMs, flushMs: ttlMs + 2000, retryDelayMs: 100 };
    const front = await openFront(at.cluster, options);
    const other = await openFront(at.cluster, options);
    expect(await front.claim(KEY)).toEqual({ kind: 'claimed' });
    const claimedAt = Date.now();
    const down = await outage();
    await expect(front.put(KEY, answerFor(KEY))).rejects.toBeInstanceOf(StoreUnavailable);
    await down.end();
    // The other front waits for the holder, then gets what it bought; by then the claim would have
    // expired had it not been renewed.
    expect(await other.claim(KEY)).toEqual({ kind: 'answer', outcome: answerFor(KEY) });
    expect(Date.now() - claimedAt).toBeGreaterThan(ttlMs);
    expect(await keptKeys(schema)).toEqual([KEY]);
  }, 30_000);

  it('still held at close, is set aside; the next open writes it to the store', async () => {
    const schema = freshSchema();
    const dir = rescueDir();
    const options = { schema, retryDelayMs: 100, rescueDir: dir };
    const front = await openFront(at.cluster, options);
    expect(await front.claim(KEY)).toEqual({ kind: 'claimed' });
    const down = await outage();
    await expect(front.put(KEY, answerFor(KEY))).rejects.toBeInstanceOf(StoreUnavailable);
    const closed = await front.close().catch((error: unknown) => error);
    expect(closed).toBeInstanceOf(StoreUnavailable);
    const message = (closed as Error).message;
    expect(message).toMatch(
      /^postgres postgres@127\.0\.0\.1:\d+\/enrich_test: 1 paid answers \(1 phone-lookup\) of sandbox could not be written; they are set aside in .*enrich-unsaved-[0-9a-f]+\.[^ ]+\.jsonl, and the next open/,
    );
    expect(message).not.toContain(PHONE);
    expect(message).not.toContain(at.cluster.password);
    expect(readdirSync(dir)).toHaveLength(1);
    await down.end();
    // Another namespace's open leaves it where it is; this namespace's takes it in.
    await openFront(at.cluster, { ...options, namespace: 'https://api.example' });
    expect(await keptKeys(schema)).toEqual([]);
    expect(readdirSync(dir)).toHaveLength(1);
    const next = await openFront(at.cluster, options);
    expect(await keptKeys(schema)).toEqual([KEY]);
    expect(readdirSync(dir)).toEqual([]);
    expect(await next.claim(KEY)).toEqual({ kind: 'answer', outcome: answerFor(KEY) });
  }, 30_000);

  it('set aside twice (two files hold its key), is imported once, the later purchase kept', async () => {
    const schema = freshSchema();
    const dir = rescueDir();
    const name = postgresRescueName(describePostgresUrl(at.cluster.url), schema, dir);
    const early = { ...answerFor(KEY), extra: { Bought: 'early' } };
    AnswerStore.setAside({ path: name, namespace: NS, rescueDir: dir, now: () => 1_000 }, [
      { key: KEY, outcome: early },
    ]);
    AnswerStore.setAside({ path: name, namespace: NS, rescueDir: dir, now: () => Date.now() }, [
      { key: KEY, outcome: answerFor(KEY) },
    ]);
    expect(readdirSync(dir)).toHaveLength(2);
    const front = await openFront(at.cluster, { schema, rescueDir: dir });
    expect(await keptKeys(schema)).toEqual([KEY]);
    expect(readdirSync(dir)).toEqual([]);
    expect(await front.claim(KEY)).toEqual({ kind: 'answer', outcome: answerFor(KEY) });
  });

  it('that cannot be set aside either, is said lost at close: how many, of which operation, no key', async () => {
    const schema = freshSchema();
    // A file where the rescue folder should be: nothing can be written there.
    const dir = join(rescueDir(), 'not-a-folder');
    writeFileSync(dir, '');
    const front = await openFront(at.cluster, { schema, retryDelayMs: 100, rescueDir: dir });
    await front.claim(KEY);
    await front.claim('email-verify:[["Email","jane@example.com"]]');
    await outage();
    await expect(front.put(KEY, answerFor(KEY))).rejects.toBeInstanceOf(StoreUnavailable);
    await expect(
      front.put('email-verify:[["Email","jane@example.com"]]', answerFor('e')),
    ).rejects.toBeInstanceOf(StoreUnavailable);
    const message = String(await front.close().catch((error: unknown) => (error as Error).message));
    expect(message).toMatch(
      /: 2 paid answers \(1 phone-lookup, 1 email-verify\) of sandbox could not be written, nor set aside \(.+\): they are lost, and may be bought again$/,
    );
    expect(message).not.toContain(PHONE);
    expect(message).not.toContain('jane');
  }, 30_000);
});
