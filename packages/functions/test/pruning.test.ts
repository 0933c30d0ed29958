// The shared store pruned on a schedule (src/pruning.ts, issue 38's retention), with the built
// server in processes of their own and a real PostgreSQL store (a cluster of this file's own): two
// instances started at once prune the answers older than the retention at start, one of them only;
// an answer that grows old meanwhile is pruned at a later interval; the service user's retention
// setting decides the age; `--prune-every off` prunes nothing; a bad interval is refused. The log
// lines say how many answers, never which: no phone, no key, no password.
import { openStore, setRetentionDays } from '@enrich/bulk';
import { type PostgresCluster, queryAt, startPostgresCluster } from '@enrich/bulk/test-postgres';
import { getOperation, requestKey } from '@enrich/core';
import type { SandboxServer } from '@enrich/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type Instance,
  serviceEnv,
  sleep,
  spawnInstance,
  startInstance,
  startSandbox,
  tempDir,
} from './helpers.js';

let cluster: PostgresCluster;
let sandbox: SandboxServer;
const running: Instance[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
  sandbox = await startSandbox();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((instance) => instance.stop()));
});
afterAll(async () => {
  await sandbox?.close();
  await cluster?.remove();
});

const lookup = getOperation('phone-lookup');
const phoneOf = (i: number) => `55501${String(i).padStart(5, '0')}`;
const keyOf = (i: number) => requestKey(lookup, { Phone: phoneOf(i) });

const sql = (url: string, text: string, values: unknown[] = []) =>
  queryAt<{ key: string }>(url, text, values);

/** A store with `count` answers of people, each `ages[i]` days old (0 when not given). */
async function storeWith(name: string, count: number, ages: Record<number, number>): Promise<string> {
  const url = await cluster.createDatabase(name);
  const front = await openStore(url, {
    namespace: 'sandbox',
    maxAgeMs: Number.POSITIVE_INFINITY,
    journal: { path: `${tempDir()}/unused.jsonl` },
  });
  for (let i = 0; i < count; i++) {
    await front.claim(keyOf(i));
    await front.put(keyOf(i), { kind: 'no-match', status: 204 });
  }
  await front.close();
  for (const [i, days] of Object.entries(ages)) await age(url, Number(i), days);
  return url;
}

async function age(url: string, i: number, days: number): Promise<void> {
  await sql(url, `UPDATE enrich.answers SET bought_at = now() - $2::int * interval '1 day' WHERE key = $1`, [
    keyOf(i),
    days,
  ]);
}

async function kept(url: string): Promise<string[]> {
  return (await sql(url, 'SELECT key FROM enrich.answers ORDER BY key')).map((r) => r.key);
}

/** Waits until `check` holds, up to `ms`; returns whether it did. */
async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(100);
  }
  return check();
}

const pruneLines = (instances: readonly Instance[]) =>
  instances.flatMap((instance) => instance.output().match(/pruned \d+ answers older than .*/g) ?? []);

function noPersonalData(instances: readonly Instance[], password: string): void {
  for (const instance of instances) {
    const text = instance.output();
    for (let i = 0; i < 6; i++) expect(text).not.toContain(phoneOf(i));
    expect(text).not.toContain(password);
  }
}

describe('the functions server prunes the shared store on a schedule', () => {
  it('at start by one of two instances, then every interval; the log names no one', async () => {
    const url = await storeWith('prune_two', 6, { 0: 31, 1: 40, 2: 365 });
    const started = await Promise.all(
      [0, 1].map(() =>
        startInstance({ args: ['--store', url, '--prune-every', '3s'], env: serviceEnv(sandbox) }),
      ),
    );
    running.push(...started);
    expect(await until(async () => (await kept(url)).length === 3, 10_000)).toBe(true);
    expect(await kept(url)).toEqual([keyOf(3), keyOf(4), keyOf(5)]);
    await sleep(500);
    // The start's prune was one instance's: the other found it being done, or just done.
    const atStart = pruneLines(started);
    expect(atStart).toHaveLength(1);
    expect(atStart[0]).toMatch(
      /^pruned 3 answers older than 30 days from postgres postgres@127\.0\.0\.1:\d+\/prune_two$/,
    );

    // An answer that grows old meanwhile goes at a later interval, with no one asking.
    await age(url, 3, 31);
    expect(await until(async () => (await kept(url)).length === 2, 15_000)).toBe(true);
    expect(await kept(url)).toEqual([keyOf(4), keyOf(5)]);
    expect(pruneLines(started).some((line) => line.startsWith('pruned 1 answers'))).toBe(true);
    noPersonalData(started, cluster.password);
  });

  it("keeps to the service user's retention; --prune-every off prunes nothing", async () => {
    const url = await storeWith('prune_retention', 3, { 0: 10, 1: 5 });
    const dataDir = tempDir('enrich-functions-data-');
    setRetentionDays(dataDir, 7);

    const off = await startInstance({
      args: ['--store', url, '--prune-every', 'off'],
      env: serviceEnv(sandbox, { ENRICH_DATA_DIR: dataDir }),
    });
    running.push(off);
    expect(await until(async () => off.output().includes('not pruned (--prune-every off)'), 5000)).toBe(true);
    await sleep(1500);
    expect(await kept(url)).toHaveLength(3);
    await off.stop();

    const on = await startInstance({
      args: ['--store', url],
      env: serviceEnv(sandbox, { ENRICH_DATA_DIR: dataDir, ENRICH_PRUNE_EVERY: '2h' }),
    });
    running.push(on);
    expect(await until(async () => (await kept(url)).length === 2, 10_000)).toBe(true);
    expect(await kept(url)).toEqual([keyOf(1), keyOf(2)]);
    expect(pruneLines([on])).toEqual([expect.stringMatching(/^pruned 1 answers older than 7 days from /)]);
    expect(on.output()).toContain('answers older than the retention pruned every 120 min');
    noPersonalData([on], cluster.password);
  });

  it('refuses an interval that is not one, naming the flag', async () => {
    for (const [args, env] of [
      [['--prune-every', 'soon'], {}],
      [['--prune-every', '0s'], {}],
      [[], { ENRICH_PRUNE_EVERY: 'forever' }],
    ] as const) {
      const { child, output } = spawnInstance({ args: ['--no-auth', ...args], env });
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).toBe(2);
      expect(output()).toMatch(
        /--prune-every \(ENRICH_PRUNE_EVERY\) takes a duration such as 1h, 90m or 6h, or off/,
      );
    }
  });
});
