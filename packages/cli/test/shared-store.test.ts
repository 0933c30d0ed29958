// `enrich` with a shared answer store (--store / ENRICH_STORE) on a real PostgreSQL cluster, each
// command a process of its own, against a sandbox over real HTTP, whose count of requests is
// what was bought: two processes at once on one file buy each person once; a one-off call reuses
// what a bulk run bought; the store's cap refuses before anything is sent; `enrich spend --store`
// prints the store's table; the store's password never shows, whatever happens.
import { join } from 'node:path';
import { openStore } from '@enrich/bulk';
import { type PostgresCluster, queryAt, startPostgresCluster } from '@enrich/bulk/test-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, tempDir, writeCsv } from './helpers.js';
import { env, server, useSandbox } from './sandbox-per-file.js';

useSandbox();
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgresCluster();
}, 60_000);
afterAll(() => cluster?.remove());

/** Everything the commands of this file printed, for the password scan. */
const printed: string[] = [];

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The command in a process of its own, as a user runs it. */
async function enrich(
  argv: readonly string[],
  more: Record<string, string> = {},
  cwd = tempDir(),
): Promise<Ran> {
  const ran = await spawnCli(argv, { env: { ...env, ...more }, cwd }).done;
  printed.push(ran.stdout, ran.stderr);
  return ran;
}

const phone = (i: number) => `555${String(3_000_000 + i).padStart(7, '0')}`;

/** A CSV of the phones `from` to `to` (excluded), each twice, in a folder of its own. */
function leads(from: number, to: number): string {
  const rows = Array.from({ length: (to - from) * 2 }, (_, i) => [phone(from + (i % (to - from)))]);
  return writeCsv(join(tempDir(), 'leads.csv'), [['phone'], ...rows]);
}

let databases = 0;
/** A database of its own for a test: a store nobody else has used. */
async function freshStore(): Promise<string> {
  databases++;
  return cluster.createDatabase(`cli_${databases}`);
}

describe('enrich with a shared answer store', { timeout: 60_000 }, () => {
  it('two processes at once on one store with the same file buy each person once', async () => {
    const store = await freshStore();
    const file = leads(0, 40);
    const run = () =>
      enrich(['phone-lookup', '--in', file, '--out', join(tempDir(), 'out.csv'), '--json', '--store', store]);
    const [a, b] = await Promise.all([run(), run()]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    const [sa, sb] = [JSON.parse(a.stdout), JSON.parse(b.stdout)];
    expect(server.sandbox.stats().requests).toBe(40);
    expect(sa.transactions + sb.transactions).toBe(40);
    expect(sa.fromStore + sb.fromStore).toBe(40);
    for (const s of [sa, sb]) expect(s).toMatchObject({ rows: 80, distinct: 40, ok: 80, completed: true });
  });

  it('a one-off call and a dry run reuse what a bulk run bought; the report names the store', async () => {
    const store = await freshStore();
    const run = await enrich(['phone-lookup', '--in', leads(0, 5), '--store', store]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/from the shared store\s+0 \(bought by another client: free\)/);
    expect(run.stdout).toMatch(/shared answer store: postgres postgres@127\.0\.0\.1:\d+\/cli_\d+/);
    expect(server.sandbox.stats().requests).toBe(5);
    // ENRICH_STORE works as --store does; the answer comes from the store, free.
    const one = await enrich(['phone-lookup', '--Phone', phone(3), '--json'], { ENRICH_STORE: store });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).toMatch(/^From the shared answer store \(postgres .*\): no transaction spent\./m);
    expect(JSON.parse(one.stdout)).toMatchObject({ operation: 'phone-lookup', outcome: 'record' });
    // A new person is bought once, then taken from the store.
    for (let i = 0; i < 2; i++) {
      const call = await enrich(['phone-lookup', '--Phone', phone(7), '--store', store]);
      expect(call.code, call.stderr).toBe(0);
    }
    expect(server.sandbox.stats().requests).toBe(6);
    const dry = await enrich(['phone-lookup', '--in', leads(0, 10), '--dry-run', '--json', '--store', store]);
    expect(JSON.parse(dry.stdout)).toMatchObject({ distinct: 10, cached: 0, inStore: 6, transactions: 4 });
    expect(server.sandbox.stats().requests).toBe(6);
  });

  it("the store's monthly cap refuses before anything is sent", async () => {
    const store = await freshStore();
    const capped = ['--store', store, '--max-transactions-per-month', '3'];
    const run = await enrich(['phone-lookup', '--in', leads(0, 10), '--json', ...capped]);
    expect(run.code).toBe(8);
    expect(JSON.parse(run.stdout)).toMatchObject({
      transactions: 3,
      notSent: 14,
      stopped: 'budget',
      storeRefused: true,
    });
    expect(server.sandbox.stats().requests).toBe(3);
    // The cap is spent: a one-off call sends nothing, and says why.
    const one = await enrich(['phone-lookup', '--Phone', phone(20), ...capped]);
    expect(one.code).toBe(8);
    expect(one.stderr).toMatch(/^Not sent: budget: the shared answer store .* refused the transaction/m);
    expect(server.sandbox.stats().requests).toBe(3);
    // Through ENRICH_MAX_TRANSACTIONS_PER_MONTH as well.
    const viaEnv = await enrich(['phone-lookup', '--Phone', phone(21), '--store', store], {
      ENRICH_MAX_TRANSACTIONS_PER_MONTH: '3',
    });
    expect(viaEnv.code).toBe(8);
    expect(server.sandbox.stats().requests).toBe(3);
    // The cap is kept in the store: a command given none obeys it all the same.
    const bare = await enrich(['phone-lookup', '--Phone', phone(23), '--store', store]);
    expect(bare.code).toBe(8);
    expect(bare.stderr).toMatch(/^Not sent: budget: the shared answer store .* refused the transaction/m);
    expect(server.sandbox.stats().requests).toBe(3);
    // A cap that is not a whole number is refused by the one rule, naming the variable.
    const bad = await enrich(['phone-lookup', '--Phone', phone(23), '--store', store], {
      ENRICH_MAX_TRANSACTIONS_PER_MONTH: 'lots',
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /ENRICH_MAX_TRANSACTIONS_PER_MONTH must be a whole number of transactions, 0 or more; got "lots"/,
    );
    // The cap is the store's: without a store it is refused.
    const alone = await enrich(['phone-lookup', '--Phone', phone(22), '--max-transactions-per-month', '3']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--max-transactions-per-month is the shared answer store's cap/);
    expect(server.sandbox.stats().requests).toBe(3);
  });

  it('enrich spend --store prints the spend table: month, service, operation, transactions, a total', async () => {
    const store = await freshStore();
    await enrich(['phone-lookup', '--in', leads(0, 4), '--store', store]);
    await enrich(['email-verify', '--Email', 'jane.doe@example.com', '--store', store]);
    const month = new Date().toISOString().slice(0, 7);
    const spend = await enrich(['spend', '--store', store]);
    expect(spend.code, spend.stderr).toBe(0);
    const service = server.url.replace(/\/$/, '');
    expect(spend.stdout).toContain('Shared answer store: postgres postgres@127.0.0.1');
    expect(spend.stdout).toMatch(/month\s+service\s+operation\s+transactions/);
    expect(spend.stdout).toMatch(new RegExp(`${month}\\s+${service}\\s+email-verify\\s+1`));
    expect(spend.stdout).toMatch(new RegExp(`${month}\\s+${service}\\s+phone-lookup\\s+4`));
    expect(spend.stdout).toMatch(new RegExp(`total\\s+${service}\\s+5`));
    // `--store` alone reads ENRICH_STORE; --json gives the same rows.
    const json = JSON.parse((await enrich(['spend', '--store', '--json'], { ENRICH_STORE: store })).stdout);
    expect(json).toMatchObject({ transactions: 5, totals: [{ origin: service, transactions: 5 }] });
  });

  it("enrich spend --store keeps the sandbox's count out of what may be billed, and shows the store's caps", async () => {
    const store = await freshStore();
    // What other clients spent: the embedded sandbox (namespace "sandbox") and a real service.
    const spent = async (namespace: string, count: number, maxTransactionsPerMonth?: number) => {
      const front = await openStore(store, {
        namespace,
        maxAgeMs: Number.POSITIVE_INFINITY,
        ...(maxTransactionsPerMonth === undefined ? {} : { maxTransactionsPerMonth }),
        journal: { path: '' },
      });
      await front.reserve({ operation: 'phone-lookup', count });
      await front.close();
    };
    await spent('sandbox', 3);
    await spent('https://api.example.com', 4, 50_000);
    const text = await enrich(['spend', '--store', store]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /total\s+http:\/\/127\.0\.0\.1\s+3\s+\(a sandbox on this machine: nothing billed\)/,
    );
    expect(text.stdout).toMatch(/total\s+all real services\s+4\s+\(what may be billed\)/);
    expect(text.stdout).toMatch(/total\s+all sandboxes\s+3\s+\(nothing billed\)/);
    expect(text.stdout).toMatch(
      /Monthly caps kept in the store .*\n\s+https:\/\/api\.example\.com: 50,000 transactions a month/,
    );
    const json = JSON.parse((await enrich(['spend', '--store', store, '--json'])).stdout);
    expect(json).toMatchObject({
      transactions: 7,
      billable: 4,
      local: 3,
      caps: [
        {
          namespace: 'https://api.example.com',
          service: 'https://api.example.com',
          maxTransactionsPerMonth: 50_000,
        },
      ],
    });
  });

  it("enrich spend --store --csv: the ledger's columns; --since a month keeps that month on, a finer one is refused", async () => {
    const store = await freshStore();
    await enrich(['phone-lookup', '--in', leads(0, 3), '--store', store]);
    const month = new Date().toISOString().slice(0, 7);
    const service = server.url.replace(/\/$/, '');
    // An older month, as the store would have kept it.
    await queryAt(
      store,
      'INSERT INTO enrich.spend (month, namespace, operation, transactions) VALUES ($1, $2, $3, $4)',
      ['2025-01', service, 'email-verify', 7],
    );
    const csv = await enrich(['spend', '--store', store, '--csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.trim().split('\n')).toEqual([
      'period,origin,operation,transactions',
      `2025-01,${service},email-verify,7`,
      `${month},${service},phone-lookup,3`,
    ]);
    expect(csv.stderr).toMatch(
      /From the shared answer store postgres postgres@127\.0\.0\.1.*; months in UTC\./,
    );
    // The same columns as the ledger's CSV.
    const local = await enrich(['spend', '--csv']);
    expect(local.stdout.split('\n')[0]).toBe('period,origin,operation,transactions');
    const since = await enrich(['spend', '--store', store, '--csv', '--since', month]);
    expect(since.stdout.trim().split('\n')).toEqual([
      'period,origin,operation,transactions',
      `${month},${service},phone-lookup,3`,
    ]);
    const text = await enrich(['spend', '--store', store, '--since', '2099-01']);
    expect(text.stdout).toContain('No transactions are recorded since 2099-01.');
    const day = await enrich(['spend', '--store', store, '--since', `${month}-01`]);
    expect(day.code).toBe(2);
    expect(day.stderr).toMatch(/with --store, --since takes a month \(YYYY-MM\): the store counts by month/);
    const byDay = await enrich(['spend', '--store', store, '--by', 'day']);
    expect(byDay.code).toBe(2);
    expect(byDay.stderr).toMatch(/--store reads the shared store, which counts by month: leave out --by day/);
  });

  it("the store's password never appears in output or errors", async () => {
    const store = await freshStore();
    const wrong = store.replace(cluster.password, `${cluster.password}x`);
    const closed = store.replace(`:${cluster.port}/`, ':1/');
    const runs = [
      await enrich(['phone-lookup', '--in', leads(0, 3), '--store', store]),
      await enrich(['phone-lookup', '--in', leads(0, 3), '--json', '--store', store]),
      await enrich(['phone-lookup', '--in', leads(0, 3), '--dry-run', '--store', store]),
      await enrich(['phone-lookup', '--Phone', phone(1), '--store', store]),
      await enrich(['spend', '--store', store]),
      await enrich(['phone-lookup', '--Phone', phone(1), '--store', wrong]),
      await enrich(['phone-lookup', '--in', leads(0, 3), '--store', closed]),
      await enrich(['spend', '--store', wrong]),
      await enrich(['phone-lookup', '--Phone', phone(1)], { ENRICH_STORE: wrong }),
      await enrich(['phone-lookup', '--Phone', phone(1), `--store=${store.replace('postgres:', 'mysql:')}`]),
      await enrich(['phone-lookup', '--Phone', phone(1), '--store', store.replace('@127', '@[bad')]),
    ];
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 9, 9, 9, 9, 2, 2]);
    expect(runs[5]?.stderr).toMatch(/password authentication failed/);
    expect(runs[6]?.stderr).toMatch(/ECONNREFUSED/);
    expect(cluster.password.length).toBeGreaterThanOrEqual(6);
    for (const text of printed) expect(text).not.toContain(cluster.password);
  });
});
