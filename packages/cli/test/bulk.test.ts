// Bulk runs through the command's own entry (main), in this process, against the sandbox over real
// HTTP on 127.0.0.1.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_RETRY_POLICY, getOperation, outputColumns } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { DEMO_KEY, RESERVED, type SandboxServer } from '@enrich/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runBulk } from '../src/bulk.js';
import { CACHE_FILE } from '../src/main.js';
import {
  phone,
  readCsv,
  readRecords,
  recordBilling,
  runCli,
  sandboxEnv,
  startServer,
  stopRecording,
  tempDir,
  writeCsv,
} from './helpers.js';

let server: SandboxServer;
let env: Record<string, string>;
const reserved = (outcome: string) => {
  const r = RESERVED.find((x) => x.outcome === outcome);
  if (!r) throw new Error(outcome);
  return r;
};

beforeAll(async () => {
  server = await startServer();
  env = sandboxEnv(server);
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  stopRecording(server);
});
beforeEach(() => {
  server.sandbox.reset();
  server.sandbox.configure({
    latencyMs: 0,
    faultRate: 0,
    allowance: null as unknown as number,
    allowanceWindowMs: null as unknown as number,
  });
});

const fastRetries = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 10, maxDelayMs: 50 };
const senderFor = () => ({
  settings: { apiKey: DEMO_KEY, baseUrl: server.url, baseUrlV3: server.url },
  transport: createFetchTransport({ timeoutMs: 5000 }),
  policy: fastRetries,
  concurrency: 4,
  sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
  now: Date.now,
});
const bulk = (dir: string, overrides: Partial<Parameters<typeof runBulk>[0]> = {}) =>
  runBulk({
    op: getOperation('phone-lookup'),
    inPath: join(dir, 'in.csv'),
    outPath: join(dir, 'out.csv'),
    cachePath: join(dir, CACHE_FILE),
    namespace: 'test',
    maxAgeMs: Number.POSITIVE_INFINITY,
    columns: outputColumns(getOperation('phone-lookup')),
    overrides: {},
    sender: {
      settings: { apiKey: DEMO_KEY, baseUrl: server.url, baseUrlV3: server.url },
      transport: createFetchTransport({ timeoutMs: 5000 }),
      policy: fastRetries,
      concurrency: 4,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      now: Date.now,
    },
    ...overrides,
  });

describe('column mapping', () => {
  it('maps columns by header name and keeps every input column, in order, before the output', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [
      ['Name', 'Phone Number', 'Notes, "quoted"'],
      ['Ann', '(555) 100-0001', 'a, b'],
      ['Bob', '555.100.0002', '"x"'],
    ]);
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv'], { env, cwd: dir });
    expect(ran.code).toBe(0);
    const rows = readCsv(join(dir, 'out.csv'));
    expect(rows[0]).toEqual([
      'Name',
      'Phone Number',
      'Notes, "quoted"',
      ...outputColumns(getOperation('phone-lookup')),
      'status',
    ]);
    expect(rows[1]?.slice(0, 3)).toEqual(['Ann', '(555) 100-0001', 'a, b']);
    expect(rows[2]?.slice(0, 3)).toEqual(['Bob', '555.100.0002', '"x"']);
    expect(rows.slice(1).map((r) => r.at(-1))).toEqual(['ok', 'ok']);
    expect(rows[1]?.[3]).not.toBe('');
    expect(server.sandbox.transactions()).toBe(2);
  });

  it('maps a column the headers do not name with --map Field=Column', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [
      ['Name', 'Contact'],
      ['Ann', '5551000001'],
    ]);
    const without = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv'], { env, cwd: dir });
    expect(without.code).toBe(2);
    expect(server.sandbox.requests()).toBe(0);
    const ran = await runCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--map', 'phone=Contact'],
      {
        env,
        cwd: dir,
      },
    );
    expect(ran.code).toBe(0);
    expect(readRecords(join(dir, 'out.csv'))[0]?.status).toBe('ok');
    expect(server.sandbox.transactions()).toBe(1);
  });

  it('--map wins over a header that names the field', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [
      ['Phone', 'Other'],
      ['not a phone', '5551000001'],
    ]);
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--map', 'Phone=Other', '--out', 'o.csv'], {
      env,
      cwd: dir,
    });
    expect(ran.code).toBe(0);
    expect(readRecords(join(dir, 'o.csv'))[0]?.status).toBe('ok');
  });

  it('stops before spending anything when a required field has no column, and says which', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [
      ['First Name', 'Last Name', 'Zip'],
      ['Ann', 'Lee', '02134'],
    ]);
    const ran = await runCli(['phone-append', '--in', 'in.csv', '--out', 'out.csv'], { env, cwd: dir });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/Address1/);
    expect(ran.stderr).toMatch(/Nothing was sent/);
    expect(server.sandbox.requests()).toBe(0);
    expect(server.sandbox.transactions()).toBe(0);
    expect(existsSync(join(dir, 'out.csv'))).toBe(false);
    // A --map to a column that does not exist stops the same way.
    const bad = await runCli(['phone-lookup', '--in', 'in.csv', '--map', 'Phone=Mobile'], { env, cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no column "Mobile"/);
    expect(server.sandbox.requests()).toBe(0);
  });
});

describe('spending', () => {
  it('sends nothing for invalid rows and says why on each', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [
      ['id', 'phone'],
      ['1', '555100001'],
      ['2', 'call me'],
      ['3', ''],
      ['4', '5551000004'],
    ]);
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json'], {
      env,
      cwd: dir,
    });
    expect(ran.code).toBe(0);
    const status = readRecords(join(dir, 'out.csv')).map((r) => r.status);
    expect(status[0]).toBe('invalid: Phone must be 10 digits; got 9');
    expect(status[1]).toMatch(/^invalid: Phone must be numeric only/);
    expect(status[2]).toMatch(/^invalid: blank row \(Phone Lookup: Phone is required\)/);
    expect(status[3]).toBe('ok');
    expect(server.sandbox.requests()).toBe(1);
    const summary = JSON.parse(ran.stdout);
    expect(summary).toMatchObject({ rows: 4, invalid: 3, blank: 1, distinct: 1, transactions: 1, ok: 1 });
  });

  it('pays once for a request repeated in the file, however it is formatted', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [
      ['phone'],
      ['5551000001'],
      ['(555) 100-0001'],
      ['+1 555 100 0001'],
      ['5551000002'],
      ['555-100-0001'],
    ]);
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json'], {
      env,
      cwd: dir,
    });
    expect(ran.code).toBe(0);
    expect(server.sandbox.transactions()).toBe(2);
    expect(server.sandbox.requests()).toBe(2);
    const rows = readCsv(join(dir, 'out.csv')).slice(1);
    expect(rows.map((r) => r.at(-1))).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    for (const i of [1, 2, 4]) expect(rows[i]?.slice(1)).toEqual(rows[0]?.slice(1));
    expect(JSON.parse(ran.stdout)).toMatchObject({ rows: 5, distinct: 2, transactions: 2 });
  });

  it('costs nothing the second time: answers come from the cache and the output is the same', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 30 }, (_, i) => [phone(i % 20)])]);
    const args = ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json'];
    const first = await runCli(args, { env, cwd: dir });
    expect(JSON.parse(first.stdout)).toMatchObject({ distinct: 20, transactions: 20, fromCache: 0 });
    const bytes = readFileSync(join(dir, 'out.csv'));
    const second = await runCli(args, { env, cwd: dir });
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ distinct: 20, transactions: 0, fromCache: 20 });
    expect(server.sandbox.transactions()).toBe(20);
    expect(server.sandbox.requests()).toBe(20);
    expect(readFileSync(join(dir, 'out.csv')).equals(bytes)).toBe(true);
    expect(existsSync(join(dir, CACHE_FILE))).toBe(true);
  });

  it('never reuses answers from another service: the cache is per base URL (or "sandbox")', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    const args = ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json'];
    await runCli(args, { env, cwd: dir });
    const other = await startServer();
    try {
      const ran = await runCli(args, { env: sandboxEnv(other), cwd: dir });
      expect(JSON.parse(ran.stdout)).toMatchObject({ fromCache: 0, transactions: 1 });
      expect(other.sandbox.transactions()).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('asks again for answers older than --max-age', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [phone(2)]]);
    const args = ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json'];
    await runCli(args, { env, cwd: dir });
    await new Promise((r) => setTimeout(r, 1100));
    const fresh = await runCli([...args, '--max-age', '1h'], { env, cwd: dir });
    expect(JSON.parse(fresh.stdout)).toMatchObject({ transactions: 0 });
    const stale = await runCli([...args, '--max-age', '1s'], { env, cwd: dir });
    expect(JSON.parse(stale.stdout)).toMatchObject({ transactions: 2, fromCache: 0 });
    expect(server.sandbox.transactions()).toBe(4);
  });

  it('--dry-run sends nothing, and its count is what the real run then spends', async () => {
    const dir = tempDir();
    // An earlier run answered some of them already.
    writeCsv(join(dir, 'part.csv'), [['phone'], ...Array.from({ length: 8 }, (_, i) => [phone(i)])]);
    await runCli(['phone-lookup', '--in', 'part.csv', '--out', 'part.out.csv'], { env, cwd: dir });
    writeCsv(join(dir, 'in.csv'), [
      ['phone'],
      ...Array.from({ length: 40 }, (_, i) => [phone(i % 25)]),
      ['12345'],
      ['not a phone'],
      [''],
    ]);
    const before = server.sandbox.requests();
    const spentBefore = server.sandbox.transactions();
    const dry = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--dry-run', '--json'], {
      env,
      cwd: dir,
    });
    expect(dry.code).toBe(0);
    expect(server.sandbox.requests()).toBe(before);
    expect(existsSync(join(dir, 'out.csv'))).toBe(false);
    const plan = JSON.parse(dry.stdout);
    expect(plan).toMatchObject({ rows: 43, invalid: 3, blank: 1, distinct: 25, cached: 8, transactions: 17 });
    expect(plan.invalidExamples.map((e: { message: string }) => e.message)).toEqual([
      'Phone must be 10 digits; got 5',
      'Phone must be numeric only (10 digits); got "notaphone"',
    ]);
    const text = await runCli(['phone-lookup', '--in', 'in.csv', '--dry-run'], { env, cwd: dir });
    expect(text.stdout).toMatch(/transactions to spend\s+17/);
    expect(text.stdout).toMatch(/row 42: Phone must be 10 digits; got 5/);

    const real = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json'], {
      env,
      cwd: dir,
    });
    expect(JSON.parse(real.stdout).transactions).toBe(plan.transactions);
    expect(server.sandbox.transactions() - spentBefore).toBe(plan.transactions);
  });

  it('--dry-run needs no key and works before any cache exists', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    const dry = await runCli(['phone-lookup', '--in', 'in.csv', '--dry-run', '--json'], {
      env: {},
      cwd: dir,
    });
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ distinct: 1, cached: 0, transactions: 1 });
    expect(existsSync(join(dir, CACHE_FILE))).toBe(false);
  });

  it('--max-transactions stops sending at the budget, marks the rest, and a rerun carries on', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [
      ['phone'],
      ...Array.from({ length: 20 }, (_, i) => [phone(i)]),
      [phone(0)],
    ]);
    const args = ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json', '--concurrency', '4'];
    const ran = await runCli([...args, '--max-transactions', '7'], { env, cwd: dir });
    expect(ran.code).toBe(8);
    expect(server.sandbox.transactions()).toBe(7);
    const summary = JSON.parse(ran.stdout);
    expect(summary).toMatchObject({ transactions: 7, stopped: 'budget', completed: true });
    const status = readRecords(join(dir, 'out.csv')).map((r) => r.status ?? '');
    expect(status).toHaveLength(21);
    expect(status.filter((s) => s === 'ok')).toHaveLength(8); // 7 answers, the last row repeats the first
    expect(status.filter((s) => s.startsWith('error: not sent: the transaction budget'))).toHaveLength(13);
    const rest = await runCli(args, { env, cwd: dir });
    expect(rest.code).toBe(0);
    expect(JSON.parse(rest.stdout)).toMatchObject({ transactions: 13, fromCache: 7 });
    expect(server.sandbox.transactions()).toBe(20);
    expect(readRecords(join(dir, 'out.csv')).every((r) => r.status === 'ok')).toBe(true);
  });
});

describe('when the service pushes back', () => {
  it('slows down on 429, as long as Retry-After says, and loses no row', async () => {
    server.sandbox.configure({ allowance: 5, allowanceWindowMs: 1000 });
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 15 }, (_, i) => [phone(i)])]);
    const started = Date.now();
    const ran = await runCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json', '--concurrency', '4'],
      {
        env,
        cwd: dir,
      },
    );
    const elapsed = Date.now() - started;
    expect(ran.code).toBe(0);
    const summary = JSON.parse(ran.stdout);
    expect(summary).toMatchObject({ ok: 15, errors: 0, notSent: 0, transactions: 15 });
    expect(summary.throttled).toBeGreaterThan(0);
    expect(server.sandbox.stats().byStatus['429']).toBe(summary.throttled);
    // Three windows of five: the run had to wait for two resets.
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(readRecords(join(dir, 'out.csv')).map((r) => r.status)).toEqual(Array(15).fill('ok'));
    expect(server.sandbox.transactions()).toBe(15);
  });

  it('prints plain progress lines when not on a terminal, and a summary at the end', async () => {
    server.sandbox.configure({ latencyMs: 100 });
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 30 }, (_, i) => [phone(i)])]);
    const ran = await runCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'o.csv', '--concurrency', '2', '--progress-every', '1'],
      { env, cwd: dir },
    );
    expect(ran.code).toBe(0);
    expect(ran.stderr).toMatch(
      /^Phone Lookup: \d+ rows written \(about \d+% of the file\), \d+ rows\/s, \d+ transactions$/m,
    );
    expect(ran.stdout).toMatch(/^Phone Lookup: in\.csv -> o\.csv$/m);
    for (const label of [
      'rows',
      'distinct requests',
      'transactions spent',
      'ok',
      'no match',
      'invalid',
      'errors',
      'time',
    ]) {
      expect(ran.stdout).toMatch(new RegExp(`^  ${label} +\\S`, 'm'));
    }
    expect(ran.stdout).toMatch(/transactions spent +30/);
  });

  it('--rate keeps requests apart', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 11 }, (_, i) => [phone(i)])]);
    const started = Date.now();
    const ran = await runCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'o.csv', '--rate', '20/s', '--concurrency', '8'],
      {
        env,
        cwd: dir,
      },
    );
    expect(ran.code).toBe(0);
    // 11 requests at 20 a second: the last one starts 500 ms after the first.
    expect(Date.now() - started).toBeGreaterThanOrEqual(480);
  });

  it('retries 500s per the core policy, then marks the row and goes on', async () => {
    const fault = reserved('fault').phone;
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [fault], [phone(2)], [fault]]);
    const seen = recordBilling(server);
    const summary = await bulk(dir);
    expect(summary).toMatchObject({ ok: 2, errors: 2, transactions: 2, completed: true });
    const status = readRecords(join(dir, 'out.csv')).map((r) => r.status);
    expect(status[1]).toMatch(/^error: The service had an error \(500\)/);
    expect(status[3]).toBe(status[1]);
    expect(status[0]).toBe('ok');
    expect(status[2]).toBe('ok');
    // Five attempts (the policy's maximum) for the failing request, and only once for its duplicate.
    expect(seen.seen.filter((b) => b.includes(fault))).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
    // A failure is not an answer: it is not cached, so the next run tries again.
    const again = await bulk(dir);
    expect(again).toMatchObject({ fromCache: 2, transactions: 0, errors: 2 });
  });

  it('recovers from injected faults by retrying, and pays once per request', async () => {
    server.sandbox.configure({ faultRate: 0.3 });
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 60 }, (_, i) => [phone(i)])]);
    // Ten attempts: the chance that one of the 60 fails all of them is below 1 in 10,000.
    const policy = { ...fastRetries, maxAttempts: 10 };
    const summary = await bulk(dir, { sender: { ...senderFor(), policy } });
    expect(summary).toMatchObject({ ok: 60, errors: 0, transactions: 60, requests: 60 });
    expect(summary.attempts).toBeGreaterThan(60);
    expect(server.sandbox.stats().byStatus['500']).toBe(summary.attempts - 60);
    expect(server.sandbox.transactions()).toBe(60);
  });

  it('stops sending when the key is refused, and exits with the auth code', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 10 }, (_, i) => [phone(i)])]);
    const ran = await runCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'o.csv', '--json', '--concurrency', '1'],
      {
        env: sandboxEnv(server, 'not-the-key'),
        cwd: dir,
      },
    );
    expect(ran.code).toBe(4);
    expect(JSON.parse(ran.stdout)).toMatchObject({ stopped: 'auth', errors: 1, notSent: 9 });
    expect(server.sandbox.requests()).toBe(1);
    expect(ran.stdout + ran.stderr).not.toContain('not-the-key');
  });

  it('stops sending when the allowance is gone for good, and a later run carries on', async () => {
    server.sandbox.configure({ allowance: 3, retryAfterSeconds: 0 });
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 10 }, (_, i) => [phone(i)])]);
    const summary = await bulk(dir, {});
    expect(summary.transactions).toBe(3);
    expect(summary.stopped).toBe('allowance');
    expect(summary.ok).toBe(3);
    expect(summary.ok + summary.errors + summary.notSent).toBe(10);
    server.sandbox.reset();
    server.sandbox.configure({ allowance: null as unknown as number });
    const rest = await bulk(dir);
    expect(rest).toMatchObject({ ok: 10, fromCache: 3, transactions: 7 });
  });
});

describe('the output file', () => {
  it('neutralises values a spreadsheet would run as formulas, and leaves input columns alone', async () => {
    const formula = reserved('formula').phone;
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [
      ['phone', 'note'],
      [formula, '=my own note'],
      [phone(1), 'plain'],
    ]);
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv'], { env, cwd: dir });
    expect(ran.code).toBe(0);
    const [header, row, plain] = readCsv(join(dir, 'out.csv'));
    expect(row?.[1]).toBe('=my own note');
    const output = (row ?? []).slice(2, -1);
    const risky = output.filter((v) => /^'[=+\-@\t\r]/.test(v));
    expect(risky.length).toBeGreaterThan(0);
    expect(output.filter((v) => /^[=+\-@\t\r]/.test(v))).toEqual([]);
    const fname = header?.indexOf('FName') ?? -1;
    expect(row?.[fname]).toMatch(/^'=HYPERLINK\(/);
    expect((plain ?? []).slice(2).every((v) => !v.startsWith("'"))).toBe(true);
  });

  it('renames output columns that an input column already names', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [
      ['Phone', 'Zip', 'status'],
      [phone(1), '02134', 'lead'],
    ]);
    await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--fields', 'FName,Zip'], {
      env,
      cwd: dir,
    });
    const [header, row] = readCsv(join(dir, 'out.csv'));
    expect(header).toEqual([
      'Phone',
      'Zip',
      'status',
      'FName',
      'Zip (phone-lookup)',
      'status (phone-lookup)',
    ]);
    expect(row?.slice(0, 3)).toEqual([phone(1), '02134', 'lead']);
    expect(row?.at(-1)).toBe('ok');
  });

  it('takes a --fields name the description does not have as an extra field (saying so), and refuses one no field can have', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['Phone'], [phone(1)]]);
    // Issue 8: the service may send fields the description does not list; --fields can name them.
    const extra = await runCli(['phone-lookup', '--in', 'in.csv', '--fields', 'FName,Shoe', '--quiet'], {
      env,
      cwd: dir,
    });
    expect(extra.code).toBe(0);
    expect(extra.stderr).toMatch(/Shoe is not in the API description of Phone Lookup/);
    expect(readCsv(join(dir, 'in.phone-lookup.csv'))[0]).toEqual(['Phone', 'FName', 'Shoe', 'status']);
    server.sandbox.reset();
    const bad = await runCli(['phone-lookup', '--in', 'in.csv', '--fields', 'FName,Sh oe!'], {
      env,
      cwd: dir,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no column "Sh oe!"/);
    expect(server.sandbox.requests()).toBe(0);
  });

  it('writes the same bytes whether answers come from memory or are read back from the cache file', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [
      ['phone'],
      ...Array.from({ length: 200 }, (_, i) => [phone((i * 7) % 37)]),
    ]);
    await bulk(dir);
    const fromMemory = readFileSync(join(dir, 'out.csv'));
    const fromDisk = await bulk(dir, { memoryAnswers: 1 });
    expect(fromDisk.transactions).toBe(0);
    expect(readFileSync(join(dir, 'out.csv')).equals(fromMemory)).toBe(true);
  });

  it('keeps no API key in the cache or the output', async () => {
    const secret = 'sk-live-0123456789abcdef';
    const keyed = await startServer({ keys: [secret] });
    try {
      const dir = tempDir();
      writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [reserved('no-match').phone]]);
      const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv'], {
        env: sandboxEnv(keyed, secret),
        cwd: dir,
      });
      expect(ran.code).toBe(0);
      for (const file of ['out.csv', CACHE_FILE]) {
        expect(readFileSync(join(dir, file), 'utf8')).not.toContain(secret);
      }
      expect(ran.stdout + ran.stderr).not.toContain(secret);
    } finally {
      await keyed.close();
    }
  });
});

describe('the answer cache file', () => {
  it('stops before sending anything when the cache cannot be opened', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'o.csv', '--cache', '.'], {
      env,
      cwd: dir,
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/Cannot use the answer cache/);
    expect(server.sandbox.requests()).toBe(0);
  });

  it('skips a torn last line (a run killed mid-write) and asks for that answer again', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [phone(2)]]);
    const args = ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json'];
    await runCli(args, { env, cwd: dir });
    const cache = join(dir, CACHE_FILE);
    const lines = readFileSync(cache, 'utf8').split('\n');
    // Cut the second answer in half.
    writeFileSync(cache, `${lines[0]}\n${lines[1]?.slice(0, 40)}`);
    const ran = await runCli(args, { env, cwd: dir });
    expect(JSON.parse(ran.stdout)).toMatchObject({ fromCache: 1, transactions: 1, ok: 2 });
    const again = await runCli(args, { env, cwd: dir });
    expect(JSON.parse(again.stdout)).toMatchObject({ fromCache: 2, transactions: 0 });
    appendFileSync(cache, 'not json\n');
    const third = await runCli(args, { env, cwd: dir });
    expect(JSON.parse(third.stdout)).toMatchObject({ fromCache: 2, transactions: 0 });
  });

  it("refuses a second run on a cache another live run holds, and takes over a dead run's lock", async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    const lock = join(dir, `${CACHE_FILE}.lock`);
    writeFileSync(lock, String(process.ppid));
    const refused = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'o.csv'], { env, cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/Another enrich run/);
    expect(server.sandbox.requests()).toBe(0);
    writeFileSync(lock, '999999999');
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'o.csv'], { env, cwd: dir });
    expect(ran.code).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });
});
