// Must-show 2 of issue 24: the spend ledger. The built command (dist/enrich.mjs) runs as users run
// it, in processes of its own, against the sandbox over real HTTP, with ENRICH_LEDGER in a temp
// folder; `enrich spend` then shows exactly what the runs' own summaries say they spent, two runs
// writing the ledger at once lose no line, and so does the demo (`pnpm start`).
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ledgerLine, readLedger } from '@enrich/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI_DIR, phone, tempDir, writeCsv } from './helpers.js';
import { startHostile } from './hostile-servers.js';
import { env, server, useSandbox } from './process-setup.js';

useSandbox();

const DIST = join(CLI_DIR, 'dist', 'enrich.mjs');
const PACKAGES = join(CLI_DIR, '..');

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a script with node in a process of its own (a home of its own: nothing reaches the user's). */
function node(
  script: string,
  args: readonly string[],
  options: { env: Record<string, string>; cwd: string },
) {
  return new Promise<Ran>((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: tempDir(), ...options.env },
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
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const enrich = (args: readonly string[], options: { env: Record<string, string>; cwd: string }) =>
  node(DIST, args, options);

/** A folder with its own ledger, and the environment that points the command at both. */
function workspace(): { dir: string; ledger: string; env: Record<string, string> } {
  const dir = tempDir();
  const ledger = join(dir, 'ledger', 'spend.jsonl');
  return { dir, ledger, env: { ...env, ENRICH_LEDGER: ledger } };
}

/** A CSV of `count` distinct phones from `from`, with a duplicate and an invalid row (neither paid). */
function phones(dir: string, name: string, from: number, count: number): string {
  const rows = Array.from({ length: count }, (_, i) => [phone(from + i)]);
  return writeCsv(join(dir, name), [['phone'], ...rows, [phone(from)], ['123']]);
}

/** A CSV of `count` distinct e-mail addresses. */
function emails(dir: string, name: string, count: number): string {
  return writeCsv(join(dir, name), [
    ['email'],
    ...Array.from({ length: count }, (_, i) => [`lead.${i}@example.com`]),
  ]);
}

async function bulk(w: ReturnType<typeof workspace>, args: readonly string[]): Promise<number> {
  const ran = await enrich([...args, '--json', '--quiet'], { env: w.env, cwd: w.dir });
  expect(ran.code, ran.stderr).toBe(0);
  return JSON.parse(ran.stdout).transactions as number;
}

interface SpendJson {
  ledger: string;
  timeZone: string;
  rows: { period: string; origin: string; operation: string; transactions: number }[];
  totals: { origin: string; transactions: number }[];
  transactions: number;
  skipped: number;
}

async function spend(w: ReturnType<typeof workspace>, args: readonly string[] = []): Promise<SpendJson> {
  const ran = await enrich(['spend', '--json', ...args], { env: w.env, cwd: w.dir });
  expect(ran.code, ran.stderr).toBe(0);
  return JSON.parse(ran.stdout) as SpendJson;
}

/** The newest modification time of the files under `dir` (the bundle's sources). */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

beforeAll(() => {
  // turbo builds before testing; a direct `vitest run` after editing the sources builds here, so the
  // test never passes on a stale bundle.
  const sources = ['cli', 'bulk', 'core'].map((p) => newest(join(PACKAGES, p, 'src')));
  if (!existsSync(DIST) || Math.max(...sources) > statSync(DIST).mtimeMs) {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: CLI_DIR, stdio: 'pipe' });
  }
}, 120_000);

describe('enrich spend', () => {
  it('shows exactly what two bulk runs and a call spent; a cached rerun, a dry run and check-key add nothing', async () => {
    const w = workspace();
    const empty = await enrich(['spend'], { env: w.env, cwd: w.dir });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain(`Spend ledger: ${w.ledger}`);
    expect(empty.stdout).toContain('No paid transactions are recorded yet.');

    phones(w.dir, 'a.csv', 0, 40);
    emails(w.dir, 'b.csv', 25);
    const first = await bulk(w, ['phone-lookup', '--in', 'a.csv']);
    const second = await bulk(w, ['email-verify', '--in', 'b.csv']);
    expect(first).toBe(40);
    expect(second).toBe(25);
    const call = await enrich(['phone-lookup', '--Phone', phone(5000), '--json'], { env: w.env, cwd: w.dir });
    expect(call.code).toBe(0);

    const after = await spend(w);
    const origin = new URL(server.url).origin;
    expect(after).toMatchObject({ ledger: w.ledger, timeZone: 'UTC', skipped: 0 });
    expect(after.transactions).toBe(first + second + 1);
    expect(after.totals).toEqual([{ origin, transactions: first + second + 1 }]);
    expect(after.rows.find((r) => r.operation === 'phone-lookup')?.transactions).toBe(first + 1);

    // Nothing new is bought: the answer cache answers the rerun, the dry run sends nothing, and the
    // key check is refused as incomplete (400: not billed).
    expect(await bulk(w, ['phone-lookup', '--in', 'a.csv'])).toBe(0);
    expect(
      (await enrich(['phone-lookup', '--in', 'a.csv', '--dry-run'], { env: w.env, cwd: w.dir })).code,
    ).toBe(0);
    expect((await enrich(['check-key'], { env: w.env, cwd: w.dir })).code).toBe(0);
    expect((await spend(w)).transactions).toBe(first + second + 1);

    // Each line: no personal data, the input's base name only.
    const text = readFileSync(w.ledger, 'utf8');
    expect(text).not.toContain(phone(0));
    expect(text).not.toContain(w.dir);
    expect(text).not.toContain(env.ENRICH_API_KEY);
    expect(new Set(readLedger(text).entries.map((e) => e.file))).toEqual(
      new Set(['a.csv', 'b.csv', undefined]),
    );
  }, 60_000);

  it('prints a table, CSV, days and a since; says where the ledger is, that periods are UTC, and what it skipped', async () => {
    const w = workspace();
    phones(w.dir, 'a.csv', 2000, 12);
    const spent = await bulk(w, ['phone-lookup', '--in', 'a.csv']);
    const today = new Date().toISOString().slice(0, 10);
    const month = today.slice(0, 7);
    const origin = new URL(server.url).origin;

    const table = await enrich(['spend'], { env: w.env, cwd: w.dir });
    expect(table.stdout).toContain(`Spend ledger: ${w.ledger}`);
    expect(table.stdout).toContain('by month (UTC)');
    expect(table.stdout).toMatch(new RegExp(`${month} +${origin} +phone-lookup +${spent}\\n`));
    expect(table.stdout).toMatch(new RegExp(`total +${origin} +${spent}`));
    // A sandbox started on a port is a sandbox too, and the grand totals keep it apart (issue 40).
    expect(table.stdout).toMatch(
      new RegExp(
        `total +${origin.replaceAll('.', '\\.')} +${spent}  \\(a sandbox on this machine: nothing billed\\)\n`,
      ),
    );
    expect(table.stdout).toMatch(/\ntotal +all real services +0 {2}\(what may be billed\)\n/);
    expect(table.stdout).toMatch(new RegExp(`\ntotal +all sandboxes +${spent}  \\(nothing billed\\)\n`));

    const csv = await enrich(['spend', '--csv', '--by', 'day'], { env: w.env, cwd: w.dir });
    expect(csv.stdout).toBe(
      `period,origin,operation,transactions\n${today},${origin},phone-lookup,${spent}\n`,
    );
    expect(csv.stderr).toContain('UTC');

    expect((await spend(w, ['--by', 'day', '--since', today])).rows).toEqual([
      { period: today, origin, operation: 'phone-lookup', transactions: spent },
    ]);
    const later = await spend(w, ['--since', '2999-01']);
    expect(later).toMatchObject({ rows: [], transactions: 0 });
    const none = await enrich(['spend', '--since', '2999-01-01'], { env: w.env, cwd: w.dir });
    expect(none.stdout).toContain('No paid transactions are recorded since 2999-01-01.');
    const bad = await enrich(['spend', '--since', '2026-13'], { env: w.env, cwd: w.dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('YYYY-MM');

    // A torn line (a crash mid-write), then another run: skipped and said, the rest still counted.
    appendFileSync(w.ledger, '{"v":1,"at":"2026-11-2');
    phones(w.dir, 'b.csv', 3000, 5);
    const more = await bulk(w, ['phone-lookup', '--in', 'b.csv']);
    expect(await spend(w)).toMatchObject({ transactions: spent + more, skipped: 1 });
    const said = await enrich(['spend'], { env: w.env, cwd: w.dir });
    expect(said.stdout).toContain('1 unreadable line was skipped');
    // A real service's spend: in the billable grand total, never added to the sandboxes'.
    appendFileSync(
      w.ledger,
      `\n${ledgerLine({ v: 1, at: new Date().toISOString(), operation: 'email-verify', origin: 'https://api.tdg1.io', client: 'cli', run: 'a1b2c3d4e5f6a7b8', count: 7 })}`,
    );
    expect(await spend(w)).toMatchObject({ billable: 7, local: spent + more });
    const both = await enrich(['spend'], { env: w.env, cwd: w.dir });
    expect(both.stdout).toMatch(/\ntotal +all real services +7 {2}\(what may be billed\)\n/);
  }, 60_000);

  it('a key check the service bills (200 to the empty request) is recorded', async () => {
    // A service that does not check the key before the parameters, and bills the check.
    const careless = await startHostile((_request, response, bill) => {
      bill();
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
    try {
      const w = workspace();
      const base = { ENRICH_BASE_URL: careless.url, ENRICH_BASE_URL_V3: careless.url };
      const ran = await enrich(['check-key'], { env: { ...w.env, ...base }, cwd: w.dir });
      expect(ran.stdout).toContain('may have cost a transaction');
      expect(careless.transactions).toBe(1);
      const { entries } = readLedger(readFileSync(w.ledger, 'utf8'));
      expect(entries.map((e) => [e.operation, e.origin, e.count])).toEqual([
        ['email-verify', careless.url, 1],
      ]);
    } finally {
      await careless.close();
    }
  }, 60_000);

  it('two bulk runs at once, writing one ledger, lose no line', async () => {
    const w = workspace();
    // Slow answers, so that both runs are sending (and recording, every 2 s) at the same time.
    server.sandbox.configure({ latencyMs: 25 });
    phones(w.dir, 'a.csv', 10_000, 500);
    phones(w.dir, 'b.csv', 20_000, 450);
    // Each with its own answer cache (one writer per cache), both with the one ledger.
    const runs = await Promise.all([
      bulk(w, ['phone-lookup', '--in', 'a.csv', '--cache', 'a.cache.jsonl', '--concurrency', '4']),
      bulk(w, ['phone-lookup', '--in', 'b.csv', '--cache', 'b.cache.jsonl', '--concurrency', '4']),
    ]);
    expect(runs).toEqual([500, 450]);
    const { entries, skipped } = readLedger(readFileSync(w.ledger, 'utf8'));
    expect(skipped).toBe(0);
    // Both wrote more than once while the other was writing: a run's spend is in several lines.
    expect(new Set(entries.map((e) => e.run)).size).toBe(2);
    expect(entries.length).toBeGreaterThan(2);
    expect((await spend(w)).transactions).toBe(950);
  }, 60_000);

  it("after the demo (`pnpm start`), shows exactly what the demo's summaries say it spent", async () => {
    const w = workspace();
    const out = join(w.dir, 'demo-out');
    const demoEnv = { ENRICH_LEDGER: w.ledger, ENRICH_DEMO_OUT: out };
    // As package.json's "demo" script runs it, from the package's folder.
    const demo = await node(join(CLI_DIR, 'bin', 'enrich-demo.mjs'), [], { env: demoEnv, cwd: CLI_DIR });
    expect(demo.code, demo.stderr).toBe(0);
    expect(existsSync(join(out, 'leads.phone-lookup.csv'))).toBe(true);
    // Each run's summary, in the order run: "$ enrich <operation> ..." then "transactions spent  N".
    const spentBy = new Map<string, number>();
    for (const block of demo.stdout.split('$ enrich ').slice(1)) {
      const operation = block.split(' ')[0] ?? '';
      const figure = /transactions spent +([\d,]+)/.exec(block)?.[1] ?? 'none';
      spentBy.set(operation, Number(figure.replace(/,/g, '')));
    }
    expect([...spentBy.keys()]).toEqual(['phone-lookup', 'email-verify']);
    const total = [...spentBy.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(0);
    expect(demo.stdout).toContain(`This demo spent ${total.toLocaleString('en-US')} transactions`);

    const shown = await spend({ ...w, env: demoEnv });
    expect(shown.transactions).toBe(total);
    expect(shown.totals).toEqual([{ origin: 'http://127.0.0.1', transactions: total }]);
    for (const [operation, spent] of spentBy) {
      expect(
        shown.rows.filter((r) => r.operation === operation).reduce((a, r) => a + r.transactions, 0),
      ).toBe(spent);
    }
    const table = await enrich(['spend'], { env: demoEnv, cwd: w.dir });
    expect(table.stdout).toMatch(
      new RegExp(`total +http://127\\.0\\.0\\.1 +${total.toLocaleString('en-US')} `),
    );

    // Again: every answer from the answer cache, nothing spent, nothing added to the ledger.
    const again = await node(join(CLI_DIR, 'bin', 'enrich-demo.mjs'), [], { env: demoEnv, cwd: CLI_DIR });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('This demo spent no transaction');
    expect((await spend({ ...w, env: demoEnv })).transactions).toBe(total);
  }, 120_000);
});
