// Several instances on one real PostgreSQL store (a cluster of this file's own, started by
// @enrich/bulk's harness: initdb and pg_ctl in a temporary folder, on a free port): concurrent
// batches with overlapping rows, a retry storm, per-query and monthly caps, an instance killed
// mid-batch, the database restarted mid-run. Spent = distinct valid requests, whatever happens.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openStore, type StoreFront } from '@enrich/bulk';
import { type PostgresCluster, startPostgresCluster } from '@enrich/bulk/test-postgres';
import type { SandboxServer } from '@enrich/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  bigQueryBody,
  type Instance,
  KEY,
  phones,
  post,
  serviceEnv,
  startInstance,
  startSandbox,
  statuses,
  TOKEN,
  tempDir,
} from './helpers.js';

/** The enrich command from its sources (bin/enrich.mjs runs them through tsx): the team's CLI. */
const ENRICH = join(import.meta.dirname, '..', '..', 'cli', 'bin', 'enrich.mjs');

let cluster: PostgresCluster;
let sandbox: SandboxServer;
const running: Instance[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
  sandbox = await startSandbox({ latencyMs: 20 });
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((instance) => instance.stop()));
  sandbox.sandbox.reset();
});

afterAll(async () => {
  await sandbox?.close();
  await cluster?.remove();
});

async function instances(count: number, url: string, args: readonly string[] = []): Promise<Instance[]> {
  const started = await Promise.all(
    Array.from({ length: count }, () =>
      startInstance({ args: ['--port', '0', '--store', url, ...args], env: serviceEnv(sandbox) }),
    ),
  );
  running.push(...started);
  return started;
}

/** The store's spend table, summed (read as any client reads it). */
async function storeSpend(url: string): Promise<number> {
  const store: StoreFront = await openStore(url, {
    namespace: sandbox.url,
    maxAgeMs: Number.POSITIVE_INFINITY,
    journal: { path: `${tempDir()}/unused.jsonl` },
  });
  try {
    return (await store.spend()).reduce((sum, row) => sum + row.transactions, 0);
  } finally {
    await store.close();
  }
}

/** A batch in one of the three protocols, to one instance. */
function send(
  instance: Instance,
  protocol: number,
  values: readonly (string | null)[],
  context: Record<string, string> = {},
  job?: string,
): Promise<Answer> {
  if (protocol === 0)
    return post(
      instance.url,
      '/bigquery',
      bigQueryBody(
        { operation: 'phone-lookup', ...context },
        values.map((v) => [v]),
        job,
      ),
    );
  if (protocol === 1)
    return post(
      instance.url,
      '/snowflake/phone-lookup',
      { data: values.map((v, i) => [i, v]) },
      { 'sf-custom-token': TOKEN },
    );
  return post(instance.url, '/rows', { operation: 'phone-lookup', rows: values.map((Phone) => ({ Phone })) });
}

/** Sends again while the answer is 503 (as the engines retry), up to `tries`. */
async function untilAnswered(attempt: () => Promise<Answer>, tries = 10): Promise<Answer> {
  for (let i = 1; ; i++) {
    const answer = await attempt();
    if (answer.status !== 503 || i >= tries) return answer;
  }
}

describe('four instances on one PostgreSQL store', () => {
  it('spend exactly the distinct valid requests of concurrent, overlapping batches, and 0 on a retry storm', async () => {
    const url = await cluster.createDatabase('overlap');
    const fleet = await instances(4, url);
    const pool = phones(120, 10_000);
    // 16 batches of 50, each a window of the pool (so every phone is asked by several batches and
    // instances at once), with a blank and an invalid row.
    const batches = Array.from({ length: 16 }, (_, b) => [
      ...Array.from({ length: 50 }, (_, i) => pool[(b * 23 + i * 7) % pool.length] as string),
      null,
      '12',
    ]);
    const asked = new Set(batches.flat().filter((v): v is string => v !== null && v.length === 10));
    const answers = await Promise.all(
      batches.map((batch, b) => send(fleet[b % 4] as Instance, b % 3, batch)),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(sandbox.sandbox.transactions()).toBe(asked.size);
    // The storm: every batch three more times, to every instance at once.
    const storm = await Promise.all(
      batches.flatMap((batch, b) => [1, 2, 3].map((k) => send(fleet[(b + k) % 4] as Instance, 0, batch))),
    );
    expect(storm.every((a) => a.status === 200)).toBe(true);
    for (const answer of storm) {
      const got = statuses(answer.json.replies);
      expect(got.slice(0, 50).every((s) => s === 'ok')).toBe(true);
      expect(got.slice(50)).toEqual([
        expect.stringMatching(/^invalid: blank row/),
        expect.stringMatching(/^invalid: Phone/),
      ]);
    }
    expect(sandbox.sandbox.transactions()).toBe(asked.size);
    expect(await storeSpend(url)).toBe(asked.size);
  });

  it('never overshoot a monthly cap or a query budget, however many instances spend at once', async () => {
    const url = await cluster.createDatabase('caps');
    const fleet = await instances(4, url, ['--max-transactions-per-month', '37']);
    const monthly = await Promise.all(
      Array.from({ length: 8 }, (_, b) => send(fleet[b % 4] as Instance, b % 3, phones(20, 20_000 + b * 20))),
    );
    expect(sandbox.sandbox.transactions()).toBe(37);
    const replies = monthly
      .filter((a) => a.status === 200)
      .flatMap((a) =>
        statuses(
          a.json.replies ?? a.json.results ?? (a.json.data as unknown[][] | undefined)?.map(([, r]) => r),
        ),
      );
    expect(replies.filter((s) => s === 'ok')).toHaveLength(37);
    for (const refused of monthly.filter((a) => a.status !== 200)) {
      expect(refused.status).toBe(400);
      expect(refused.json.errorMessage).toMatch(
        /Budget spent: the store's monthly cap \(--max-transactions-per-month 37\)/,
      );
    }
    expect(await storeSpend(url)).toBe(37);
    // The cap is the store's: an instance started without the option is refused past it as well.
    const [bare] = await instances(1, url);
    const late = await send(bare as Instance, 0, phones(5, 29_000));
    expect(late.status).toBe(400);
    expect(late.json.errorMessage).toMatch(
      /Budget spent: the store's monthly cap \(--max-transactions-per-month 37\)/,
    );
    expect(sandbox.sandbox.transactions()).toBe(37);

    const perQuery = await cluster.createDatabase('per_query');
    const second = await instances(4, perQuery);
    sandbox.sandbox.reset();
    const job = 'bquxjob_budget_25';
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, b) =>
        send(second[b % 4] as Instance, 0, phones(20, 30_000 + b * 20), { max_transactions: '25' }, job),
      ),
    );
    expect(sandbox.sandbox.transactions()).toBe(25);
    expect(
      answers.flatMap((a) => (a.status === 200 ? statuses(a.json.replies) : [])).filter((s) => s === 'ok'),
    ).toHaveLength(25);
    // Another query has a budget of its own.
    const other = await send(
      second[0] as Instance,
      0,
      phones(20, 40_000),
      { max_transactions: '25' },
      'bquxjob_other',
    );
    expect(other.status).toBe(200);
    expect(sandbox.sandbox.transactions()).toBe(45);
  });
});

describe('failures of an instance or of the database', () => {
  it('an instance killed mid-batch: the batch sent again elsewhere buys only what the killed one had not kept', async () => {
    const url = await cluster.createDatabase('killed');
    sandbox.sandbox.configure({ latencyMs: 150 });
    try {
      const [doomed, survivor] = await instances(2, url, ['--max-concurrency', '4']);
      const batch = phones(40, 50_000);
      const lost = send(doomed as Instance, 0, batch).catch((error: Error) => error);
      while (sandbox.sandbox.transactions() < 12) await new Promise((resolve) => setTimeout(resolve, 10));
      doomed?.child.kill('SIGKILL');
      expect(await lost).toBeInstanceOf(Error);
      const atKill = sandbox.sandbox.transactions();
      // The killed instance's claims are taken over once they expire (the store's claim TTL).
      const again = await untilAnswered(() => send(survivor as Instance, 0, batch));
      expect(again.status).toBe(200);
      expect(statuses(again.json.replies).every((s) => s === 'ok')).toBe(true);
      // Paid twice at most: what was on the wire (4 at a time) when the process died, billed by the
      // service but never answered to it. Everything it had kept is answered from the store.
      expect(atKill).toBeLessThanOrEqual(12 + 4);
      expect(sandbox.sandbox.transactions()).toBeGreaterThanOrEqual(40);
      expect(sandbox.sandbox.transactions()).toBeLessThanOrEqual(40 + 4);
    } finally {
      sandbox.sandbox.configure({ latencyMs: 20 });
    }
  });

  it('the database restarted mid-run: batches answer 503 or 200, their resends finish them, nothing is bought twice', async () => {
    const url = await cluster.createDatabase('restarted');
    sandbox.sandbox.configure({ latencyMs: 60 });
    try {
      const fleet = await instances(2, url);
      const batches = [phones(150, 60_000), phones(150, 60_100)];
      const distinct = new Set(batches.flat()).size;
      const first = batches.map((batch, b) => send(fleet[b] as Instance, 0, batch));
      while (sandbox.sandbox.transactions() < 40) await new Promise((resolve) => setTimeout(resolve, 10));
      const atRestart = sandbox.sandbox.transactions();
      await cluster.restart();
      expect(atRestart).toBeLessThan(distinct);
      const statusesSeen = (await Promise.all(first)).map((a) => a.status);
      for (const status of statusesSeen) expect([200, 503]).toContain(status);
      const finished = await Promise.all(
        batches.map((batch, b) => untilAnswered(() => send(fleet[b] as Instance, 0, batch))),
      );
      for (const answer of finished) {
        expect(answer.status).toBe(200);
        expect(statuses(answer.json.replies).every((s) => s === 'ok')).toBe(true);
      }
      expect(sandbox.sandbox.transactions()).toBe(distinct);
      // Stopped, each instance writes what it held; a new one answers every row from the store.
      await Promise.all(running.splice(0).map((instance) => instance.stop()));
      const [fresh] = await instances(1, url);
      const all = await send(fresh as Instance, 2, batches.flat());
      expect(all.status).toBe(200);
      expect(sandbox.sandbox.transactions()).toBe(distinct);
      expect(await storeSpend(url)).toBe(distinct);
    } finally {
      sandbox.sandbox.configure({ latencyMs: 20 });
    }
  });
});

describe('the CLI and the functions server on one store', () => {
  it('pay once for a person, whichever asked first', async () => {
    const url = await cluster.createDatabase('team');
    const [instance] = await instances(1, url);
    const [cliFirst, both, functionsFirst] = [phones(10, 80_000), phones(10, 80_010), phones(10, 80_020)];
    const folder = tempDir();
    writeFileSync(join(folder, 'leads.csv'), `phone\n${[...cliFirst, ...both].join('\n')}\n`);
    // Functions first for some; then the CLI's file run on the store; then functions for all.
    expect((await send(instance as Instance, 0, [...both, ...functionsFirst])).status).toBe(200);
    expect(sandbox.sandbox.transactions()).toBe(20);
    const env = {
      ...process.env,
      ENRICH_API_KEY: KEY,
      ENRICH_BASE_URL: sandbox.url,
      ENRICH_BASE_URL_V3: sandbox.url,
      ENRICH_CACHE_DIR: join(folder, 'cache'),
      ENRICH_LEDGER: join(folder, 'ledger.jsonl'),
    };
    await promisify(execFile)(
      process.execPath,
      [ENRICH, 'phone-lookup', '--in', join(folder, 'leads.csv'), '--store', url],
      { env, cwd: folder },
    );
    expect(sandbox.sandbox.transactions()).toBe(30);
    const all = await send(instance as Instance, 1, [...cliFirst, ...both, ...functionsFirst]);
    expect(all.status).toBe(200);
    expect(sandbox.sandbox.transactions()).toBe(30);
    expect(await storeSpend(url)).toBe(30);
  });
});
