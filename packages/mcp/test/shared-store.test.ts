// The server with a shared answer store (ENRICH_STORE / --store) on a real PostgreSQL cluster: the
// built server (dist/enrich-mcp.mjs) driven by the SDK's client over stdio, beside the `enrich`
// command, against a sandbox over real HTTP whose count of requests is what was bought:
// - the CLI's run on a file and the server's calls and file run, at once, with overlapping people,
//   buy each distinct person once;
// - two servers asked the same question at the same moment buy it once (the one-purchase rule,
//   across processes through the store's claim);
// - the store's cap refuses before anything is sent;
// - the store's password appears in nothing the server or the command printed or returned.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { testFolders } from '@enrich/bulk/test-folders';
import { type PostgresCluster, startPostgresCluster } from '@enrich/bulk/test-postgres';
import { type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, printed, type Session, startSession, tempDir, text } from './helpers.js';

const KEY = 'shared-store-key-1234';
/** The `enrich` command, from its sources (the workspace's way to run it without a build). */
const ENRICH = join(import.meta.dirname, '..', '..', 'cli', 'bin', 'enrich.mjs');

let sandbox: SandboxServer;
let cluster: PostgresCluster;
beforeAll(async () => {
  [sandbox, cluster] = await Promise.all([
    startSandboxServer({ host: '127.0.0.1', port: 0, keys: [KEY] }),
    startPostgresCluster(),
  ]);
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  await cluster?.remove();
});
beforeEach(() => {
  sandbox.sandbox.reset();
  sandbox.sandbox.configure({ latencyMs: 20 });
});

const service = () => ({
  ENRICH_API_KEY: KEY,
  ENRICH_BASE_URL: sandbox.url,
  ENRICH_BASE_URL_V3: sandbox.url,
});

let databases = 0;
/** A database of its own for a test: a store nobody else has used. */
async function freshStore(): Promise<string> {
  databases++;
  return cluster.createDatabase(`mcp_${databases}`);
}

const open: Session[] = [];
async function server(env: Record<string, string>, cwd?: string): Promise<Session> {
  const session = await startSession({
    env: { ...service(), ENRICH_CACHE_DIR: tempDir(), ENRICH_CONFIRM_ABOVE: '1000', ...env },
    ...(cwd ? { cwd } : {}),
  });
  open.push(session);
  return session;
}
afterAll(async () => {
  await Promise.allSettled(open.map((s) => s.close()));
});

const phone = (i: number) => `555${String(4_000_000 + i).padStart(7, '0')}`;

/** A CSV of the people `from` to `to` (excluded) of each range, in `dir`. */
function leads(dir: string, ...ranges: (readonly [number, number])[]): string {
  const path = join(dir, `leads-${ranges.flat().join('-')}.csv`);
  const rows = ranges.flatMap(([from, to]) => Array.from({ length: to - from }, (_, i) => phone(from + i)));
  writeFileSync(path, `phone\n${rows.join('\n')}\n`);
  return path;
}

/** The `enrich` command in a process of its own, its output kept for the password scan. */
function enrich(
  argv: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [ENRICH, ...argv], {
    env: {
      PATH: dirname(process.execPath),
      // The data folder too (caches.jsonl, the suppression list) is the test file's, not the user's.
      ...testFolders(),
      ENRICH_LEDGER: join(tempDir(), 'ledger.jsonl'),
      ENRICH_CACHE_DIR: tempDir(),
      ...service(),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += String(d);
  });
  child.stderr.on('data', (d) => {
    stderr += String(d);
  });
  return new Promise((resolve) =>
    child.on('close', (code) => {
      printed.push(stdout, stderr);
      resolve({ code, stdout, stderr });
    }),
  );
}

const spent = (result: { _meta?: Record<string, unknown> }) => result._meta?.['enrich/transactionsSpent'];

describe('the server with a shared answer store', { timeout: 120_000 }, () => {
  it('the CLI on a file and the server, at once, with overlapping people, buy each person once', async () => {
    const store = await freshStore();
    const dir = tempDir();
    const mcp = await server({ ENRICH_STORE: store }, dir);
    // The CLI: people 0 to 39. The server, at the same time: 20 to 49 one call each (all at once),
    // then a file of 0 to 9 (only the CLI asked them) and 50 to 59. 60 distinct people in all.
    const cli = enrich(['phone-lookup', '--in', leads(dir, [0, 40]), '--json'], { ENRICH_STORE: store });
    const calls = await Promise.all(
      Array.from({ length: 30 }, (_, i) => mcp.call('phone_lookup', { Phone: phone(20 + i) })),
    );
    for (const call of calls) expect(call.isError, text(call)).toBeFalsy();
    const ran = await cli;
    expect(ran.code, ran.stderr).toBe(0);
    const path = leads(dir, [0, 10], [50, 60]);
    const quote = await mcp.call('quote', { operation: 'phone_lookup', path });
    const plan = quote.structuredContent as { token: string; inStore: number; transactions: number };
    // 0 to 9 are not in the server's own cache, but in the store: free.
    expect(plan).toMatchObject({ distinct: 20, cached: 0, inStore: 10, transactions: 10 });
    const file = await mcp.call('enrich_file', { operation: 'phone_lookup', path, token: plan.token });
    expect(file.isError, text(file)).toBeFalsy();
    expect(file.structuredContent).toMatchObject({ transactions: 10, fromStore: 10, ok: 20 });

    expect(sandbox.sandbox.stats().requests).toBe(60);
    const byCalls = calls.reduce((sum, call) => sum + Number(spent(call)), 0);
    expect(JSON.parse(ran.stdout).transactions + byCalls + 10).toBe(60);
    // What another client bought is said to be free, and from the store.
    const fromStore = calls.filter((call) => call._meta?.['enrich/fromStore'] === true);
    expect(fromStore.length + byCalls).toBe(30);
    for (const call of fromStore) expect(text(call)).toMatch(/from the team's shared answer store/);
    // The spend tool reads the store's table: the whole team's 60.
    const spend = await mcp.call('spend');
    expect(text(spend)).toMatch(
      /The shared answer store \(postgres .*\) records this UTC month, every client of the team: 60 at http/,
    );
  });

  it('two servers asked the same questions at the same moment buy each once', async () => {
    const store = await freshStore();
    sandbox.sandbox.configure({ latencyMs: 300 });
    const [a, b] = await Promise.all([server({ ENRICH_STORE: store }), server({ ENRICH_STORE: store })]);
    const asked = Array.from({ length: 5 }, (_, i) => phone(100 + i));
    const results = await Promise.all(
      asked.flatMap((p) => [a.call('phone_lookup', { Phone: p }), b.call('phone_lookup', { Phone: p })]),
    );
    for (const result of results) expect(result.isError, text(result)).toBeFalsy();
    expect(sandbox.sandbox.stats().requests).toBe(5);
    expect(results.reduce((sum, r) => sum + Number(spent(r)), 0)).toBe(5);
  });

  it("the store's cap refuses before anything is sent; what the store holds is still free", async () => {
    const store = await freshStore();
    const mcp = await server({ ENRICH_STORE: store, ENRICH_MAX_TRANSACTIONS_PER_MONTH: '2' });
    for (const i of [0, 1]) expect(spent(await mcp.call('phone_lookup', { Phone: phone(200 + i) }))).toBe(1);
    const refused = await mcp.call('phone_lookup', { Phone: phone(202) });
    expect(refused.isError).toBe(true);
    expect(refused._meta).toMatchObject({ 'enrich/outcome': 'budget', 'enrich/transactionsSpent': 0 });
    expect(text(refused)).toMatch(/^Refused before sending: budget: the shared answer store/);
    expect(sandbox.sandbox.stats().requests).toBe(2);
    // Another server of the team, given no cap: the store keeps it, so a person already bought is
    // free, a new one refused.
    const other = await server({ ENRICH_STORE: store });
    const kept = await other.call('phone_lookup', { Phone: phone(201) });
    expect(kept._meta).toMatchObject({ 'enrich/fromStore': true, 'enrich/transactionsSpent': 0 });
    expect((await other.call('phone_lookup', { Phone: phone(203) }))._meta).toMatchObject({
      'enrich/outcome': 'budget',
    });
    expect(sandbox.sandbox.stats().requests).toBe(2);
  });

  it("the store's password appears in nothing printed or returned", async () => {
    const store = await freshStore();
    const wrong = store.replace(cluster.password, `${cluster.password}x`);
    const good = await server({ ENRICH_STORE: store });
    expect((await good.call('phone_lookup', { Phone: phone(300) })).isError).toBeFalsy();
    await good.call('spend');
    // A store that refuses the password: the call says so, nothing is sent.
    const refused = await startSession({
      args: ['--store', wrong],
      env: { ...service(), ENRICH_CACHE_DIR: tempDir() },
    });
    open.push(refused);
    // (The suppression list is read from the store first, and meets the refusal before the answers.)
    const failed = await refused.call('phone_lookup', { Phone: phone(301) });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toMatch(
      /not sent: .*postgres postgres@127\.0\.0\.1.*password authentication failed/,
    );
    expect(sandbox.sandbox.stats().requests).toBe(1);
    // A URL of another scheme is refused at start, naming the rule, not the URL.
    const usage = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, '--store', wrong.replace('postgres:', 'mysql:')], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += String(d);
      });
      child.on('close', (code) => resolve({ code, stderr }));
    });
    printed.push(usage.stderr);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/must be a PostgreSQL URL/);
    expect(cluster.password.length).toBeGreaterThanOrEqual(6);
    for (const each of printed) expect(each).not.toContain(cluster.password);
  });
});
