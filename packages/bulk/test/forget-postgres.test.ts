// Forgetting in the shared PostgreSQL store (src/forget/postgres-privacy.ts) against a real cluster
// of its own: real answers of the sandbox put through the store's front, in two namespaces; held
// lists them, forget removes them (and a claim on their key), a byte scan of every table's text in
// every spelling finds nothing, the team's suppression list holds hashes only and refuses them;
// undo only the same day; prune by the database's clock.
import { getOperation, type Identity, identitiesOf, type Outcome, requestKey } from '@enrich/core';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  forgetEverywhere,
  heldEverywhere,
  pruneEverywhere,
  readSharedSuppression,
  sharedTarget,
  undoForget,
} from '../src/index.js';
import { spellings } from './byte-scan.js';
import { tempDir } from './fixtures.js';
import { madePhone, templateLine } from './journal-maker.js';
import { freshSchema, openFront, usePostgres } from './postgres-fixtures.js';

const at = usePostgres();
const PERSON = { phone: '5550102030', email: 'jane.doe@example.com' };
const lookup = getOperation('phone-lookup');

function ids(raw: Record<string, string>): readonly Identity[] {
  const read = identitiesOf(raw);
  if (!read.ok) throw new Error(read.message);
  return read.identities;
}

async function sql<T extends pg.QueryResultRow>(query: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: at.cluster.url });
  await client.connect();
  try {
    return (await client.query<T>(query, values)).rows;
  } finally {
    await client.end();
  }
}

/** Every row of every table of the schema, as text: what a byte scan of the store reads. */
async function tableText(schema: string): Promise<string> {
  const tables = await sql<{ table_name: string }>(
    'SELECT table_name FROM information_schema.tables WHERE table_schema = $1',
    [schema],
  );
  let text = '';
  for (const { table_name } of tables) {
    const rows = await sql<{ row: string }>(`SELECT t::text AS row FROM ${schema}.${table_name} t`);
    text += rows.map((r) => r.row).join('\n');
  }
  return text;
}

const outcomeOf = (phone: string): Outcome => JSON.parse(templateLine(Date.now())(phone)).outcome;

async function fill(schema: string) {
  const sandboxFront = await openFront(at.cluster, { schema });
  const originFront = await openFront(at.cluster, { schema, namespace: 'https://api.example.com' });
  await sandboxFront.put(requestKey(lookup, { Phone: PERSON.phone }), outcomeOf(PERSON.phone));
  for (let i = 0; i < 10; i++)
    await sandboxFront.put(requestKey(lookup, { Phone: madePhone(i) }), outcomeOf(madePhone(i)));
  const verify = getOperation('email-verify');
  await originFront.put(requestKey(verify, { Email: 'Jane.Doe@example.com' }), {
    kind: 'no-match',
    status: 204,
  });
  await originFront.put(requestKey(verify, { Email: 'other@example.com' }), {
    kind: 'no-match',
    status: 204,
  });
  // A claim in flight on the person's key (a client buying them right now).
  const claim = await originFront.claim(requestKey(lookup, { Phone: PERSON.phone }));
  expect(claim.kind).toBe('claimed');
}

describe('the shared store', () => {
  it('held, then forget: nothing of the person in any table, in any spelling; the rest kept', async () => {
    const schema = freshSchema();
    await fill(schema);
    const targets = {
      dataDir: tempDir(),
      cacheDir: tempDir(),
      shared: sharedTarget(at.cluster.url, schema),
    };
    const person = ids({ Phone: '(555) 010-2030', Email: 'JANE.DOE@EXAMPLE.COM' });

    const { held } = await heldEverywhere(targets, person);
    expect(held.map((h) => [h.namespace, h.key]).sort()).toEqual([
      ['https://api.example.com', 'email-verify:[["Email","Jane.Doe@example.com"]]'],
      ['sandbox', 'phone-lookup:[["Phone","5550102030"]]'],
    ]);
    expect(held.every((h) => h.store.startsWith('postgres postgres@127.0.0.1:'))).toBe(true);
    const patterns = spellings(PERSON);
    const before = await tableText(schema);
    expect(patterns.some((p) => p.test(before))).toBe(true);

    const report = await forgetEverywhere(targets, person);
    expect(report.complete).toBe(true);
    expect(report.suppressed).toEqual({ local: 2, shared: 2 });
    expect(report.stores.find((s) => s.store.startsWith('postgres'))?.removed).toBe(2);
    const after = await tableText(schema);
    expect(patterns.filter((p) => p.test(after)).map((p) => p.source)).toEqual([]);
    expect(after).not.toContain(at.cluster.password);
    const left = await sql<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.answers`);
    expect(Number(left[0]?.n)).toBe(11);

    // The team's list: hashes, kinds, days; it refuses the person in every client of the store.
    const rows = await sql<{ hash: string; kind: string }>(`SELECT hash, kind FROM ${schema}.suppression`);
    expect(rows.map((r) => r.kind).sort()).toEqual(['email', 'phone']);
    for (const row of rows) expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    const check = await readSharedSuppression(at.cluster.url, schema);
    expect(check.refusal(lookup, { Phone: PERSON.phone })).toMatch(/^forgotten at the person's request on /);
    expect(check.refusal(lookup, { Phone: madePhone(1) })).toBeUndefined();
  });

  it('undo takes the shared entries out the same day; prune deletes by the database clock', async () => {
    const schema = freshSchema();
    await fill(schema);
    const targets = {
      dataDir: tempDir(),
      cacheDir: tempDir(),
      shared: sharedTarget(at.cluster.url, schema),
    };
    await forgetEverywhere(targets, ids({ Phone: '5550102030' }));
    const undone = await undoForget(targets, ids({ Phone: '555-010-2030' }));
    expect(undone.undone).toBe(2); // the user's entry and the team's
    expect(await sql(`SELECT * FROM ${schema}.suppression`)).toEqual([]);

    await sql(
      `UPDATE ${schema}.answers SET bought_at = now() - interval '31 days' WHERE key LIKE 'email-verify:%'`,
    );
    const pruned = await pruneEverywhere(targets);
    expect(pruned.stores.find((s) => s.store.startsWith('postgres'))?.removed).toBe(2);
    const kinds = await sql<{ key: string }>(`SELECT key FROM ${schema}.answers`);
    expect(kinds.every((r) => r.key.startsWith('phone-lookup:'))).toBe(true);
  });

  it("a store out of reach is a store NOT DONE, and the user's list is still written", async () => {
    const targets = {
      dataDir: tempDir(),
      cacheDir: tempDir(),
      shared: sharedTarget(at.cluster.url.replace(`:${at.cluster.port}/`, ':1/')),
    };
    const report = await forgetEverywhere(targets, ids({ Phone: '5550102030' }));
    expect(report.complete).toBe(false);
    expect(report.suppressed.local).toBe(1);
    const failed = report.stores.find((s) => s.failed);
    expect(failed?.failed).toMatch(/ECONNREFUSED|connect/);
    expect(JSON.stringify(report)).not.toContain(at.cluster.password);
  });
});
