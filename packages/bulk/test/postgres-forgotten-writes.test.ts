// Issue 38 against the PostgreSQL store's writes (store/postgres-held.ts, postgres-suppression.ts),
// on a real cluster of its own: an answer bought for a person the store has forgotten is the
// caller's this once and not kept, whether it is put while the forget commits (the forget that
// commits first wins), put before it (the forget then finds and deletes it), or set aside in a rescue
// file at close and imported later. The rescue files themselves are forgotten and listed with the
// store (forget/postgres-rescue.ts). After each forget, a byte scan of every table and of the rescue
// folder finds the person in no spelling.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  getOperation,
  type Identity,
  identitiesOf,
  type Outcome,
  requestKey,
  suppressionHash,
} from '@enrich/core';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { forgetEverywhere, heldEverywhere, nodeHmac, sharedTarget } from '../src/index.js';
import { readSalt, suppressionLock } from '../src/store/postgres-suppression.js';
import { StoreUnavailable } from '../src/store/store-front.js';
import { byteScan, spellings } from './byte-scan.js';
import { tempDir } from './fixtures.js';
import { templateLine } from './journal-maker.js';
import {
  freshSchema,
  NS,
  openFront,
  pendingAfter,
  sqlAt,
  tableText,
  usePostgres,
} from './postgres-fixtures.js';

const at = usePostgres();
const PERSON = { phone: '5550102030', email: 'jane.doe@example.com' };
const lookup = getOperation('phone-lookup');
const verify = getOperation('email-verify');
const PERSON_KEY = requestKey(lookup, { Phone: PERSON.phone });
const EMAIL_KEY = requestKey(verify, { Email: 'Jane.Doe@example.com' });
const OTHER_KEY = requestKey(lookup, { Phone: '5550109999' });
const outcomeOf = (phone: string): Outcome => JSON.parse(templateLine(Date.now())(phone)).outcome;

function person(): readonly Identity[] {
  const read = identitiesOf({ Phone: '(555) 010-2030', Email: 'JANE.DOE@EXAMPLE.COM' });
  if (!read.ok) throw new Error(read.message);
  return read.identities;
}

const sql = <T extends pg.QueryResultRow>(query: string, values: unknown[] = []) =>
  sqlAt<T>(at.cluster.url, query, values);

async function keys(schema: string): Promise<string[]> {
  return (await sql<{ key: string }>(`SELECT key FROM ${schema}.answers ORDER BY key`)).map((r) => r.key);
}

/** The spellings of the person found in the schema's tables (none is the target). */
async function inTables(schema: string): Promise<string[]> {
  const text = await tableText(at.cluster.url, schema);
  return spellings(PERSON)
    .filter((p) => p.test(text))
    .map((p) => p.source);
}

function targets(schema: string, rescueDir = tempDir()) {
  return { dataDir: tempDir(), cacheDir: tempDir(), rescueDir, shared: sharedTarget(at.cluster.url, schema) };
}

/** A connection of the test's own, in a transaction, ended with the test. */
async function transaction(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: at.cluster.url });
  await client.connect();
  onTestFinished(() => client.end().catch(() => {}));
  await client.query('BEGIN');
  return client;
}

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
  const dir = mkdtempSync(join(tmpdir(), 'enrich-forgotten-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('a paid answer of a person the store has forgotten', () => {
  it('is not kept by a put, nor its claim; the caller has it; others are kept', async () => {
    const schema = freshSchema();
    const front = await openFront(at.cluster, { schema });
    await forgetEverywhere(targets(schema), person());
    // A client that read the list before the forget claims and buys the person.
    expect(await front.claim(PERSON_KEY)).toEqual({ kind: 'claimed' });
    expect(await front.claim(EMAIL_KEY)).toEqual({ kind: 'claimed' });
    const bought = outcomeOf(PERSON.phone);
    await expect(front.put(PERSON_KEY, bought)).resolves.toBeUndefined();
    await front.put(EMAIL_KEY, { kind: 'no-match', status: 204 });
    await front.put(OTHER_KEY, outcomeOf('5550109999'));
    expect(await keys(schema)).toEqual([OTHER_KEY]);
    expect(await sql(`SELECT * FROM ${schema}.claims`)).toEqual([]);
    // Not held by the front either: the next asker is told to buy (its own list refuses them first).
    expect(await front.claim(PERSON_KEY)).toEqual({ kind: 'claimed' });
    await front.release(PERSON_KEY);
    expect(await inTables(schema)).toEqual([]);
  });

  it('put while a forget commits waits for it, and is not kept: the forget that commits first wins', async () => {
    const schema = freshSchema();
    const front = await openFront(at.cluster, { schema });
    // The forget's transaction, held open after adding the person (addSharedSuppressed's steps).
    const forget = await transaction();
    await forget.query(suppressionLock(schema, 'exclusive'));
    const salt = await readSalt(forget as unknown as pg.PoolClient, schema);
    const hash = suppressionHash(nodeHmac, salt, { kind: 'phone', value: PERSON.phone });
    await forget.query(`INSERT INTO ${schema}.suppression VALUES ($1, 'phone', current_date)`, [hash]);
    await front.claim(PERSON_KEY);
    const put = front.put(PERSON_KEY, outcomeOf(PERSON.phone));
    // Without the lock the put's snapshot predates the entry: it would be kept, after the forget's scan.
    expect(await pendingAfter(put, 300)).toBe(true);
    await forget.query('COMMIT');
    await put;
    expect(await keys(schema)).toEqual([]);
  });

  it("put just before a forget (in flight as it starts) is in the forget's scan, and deleted", async () => {
    const schema = freshSchema();
    await openFront(at.cluster, { schema });
    // A put in flight: its transaction holds the list's lock shared and has written the answer.
    const put = await transaction();
    await put.query(suppressionLock(schema, 'shared'));
    await put.query(`INSERT INTO ${schema}.answers (namespace, key, outcome) VALUES ($1, $2, $3::json)`, [
      NS,
      PERSON_KEY,
      JSON.stringify(outcomeOf(PERSON.phone)),
    ]);
    const forgetting = forgetEverywhere(targets(schema), person());
    // Without the lock the forget would add, scan (not seeing the uncommitted answer) and finish now.
    expect(await pendingAfter(forgetting, 300)).toBe(true);
    await put.query('COMMIT');
    const report = await forgetting;
    expect(report.complete).toBe(true);
    expect(await keys(schema)).toEqual([]);
    expect(await inTables(schema)).toEqual([]);
  });
});

describe("the store's answers set aside on this machine (rescue files)", () => {
  /** Two answers bought while the database is down, set aside at close; the database back up. */
  async function setAside(schema: string, dir: string): Promise<void> {
    const front = await openFront(at.cluster, { schema, retryDelayMs: 100, rescueDir: dir });
    await front.claim(PERSON_KEY);
    await front.claim(OTHER_KEY);
    const down = await outage();
    await expect(front.put(PERSON_KEY, outcomeOf(PERSON.phone))).rejects.toBeInstanceOf(StoreUnavailable);
    await expect(front.put(OTHER_KEY, outcomeOf('5550109999'))).rejects.toBeInstanceOf(StoreUnavailable);
    await expect(front.close()).rejects.toThrow(/set aside in/);
    await down.end();
    expect(readdirSync(dir)).toHaveLength(1);
  }

  it('are listed by held and forgotten by forget; the next open keeps the others only', async () => {
    const schema = freshSchema();
    const dir = rescueDir();
    await setAside(schema, dir);
    expect(byteScan([dir], PERSON)).not.toEqual([]);
    const t = targets(schema, dir);

    const { held } = await heldEverywhere(t, person());
    expect(held.map((h) => [h.store.replace(/@.*/, ''), h.key])).toEqual([
      ['answers set aside for postgres postgres', PERSON_KEY],
    ]);
    const report = await forgetEverywhere(t, person());
    expect(report.complete).toBe(true);
    expect(report.stores.find((s) => s.store.startsWith('answers set aside for'))?.removed).toBe(1);
    expect(byteScan([dir], PERSON)).toEqual([]);
    expect(JSON.stringify(report)).not.toContain(at.cluster.password);

    await openFront(at.cluster, { schema, rescueDir: dir });
    expect(await keys(schema)).toEqual([OTHER_KEY]);
    expect(readdirSync(dir)).toEqual([]);
    expect(await inTables(schema)).toEqual([]);
  }, 30_000);

  it('set aside after the forget, are not kept by the import: the file is settled without them', async () => {
    const schema = freshSchema();
    const dir = rescueDir();
    await openFront(at.cluster, { schema });
    await forgetEverywhere(targets(schema, tempDir()), person());
    // A front that bought the person before the forget, and could not write before it closed.
    await setAside(schema, dir);
    await openFront(at.cluster, { schema, rescueDir: dir });
    expect(await keys(schema)).toEqual([OTHER_KEY]);
    expect(readdirSync(dir)).toEqual([]);
    expect(await inTables(schema)).toEqual([]);
  }, 30_000);
});
