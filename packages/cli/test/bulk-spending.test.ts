// Bulk runs through the command's own entry (main), in this process, against the sandbox over real
// HTTP on 127.0.0.1: what a run spends (invalid rows, duplicates, the cache, --dry-run, the budget).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_FILE } from '../src/main.js';
import { env, server, useSandbox } from './bulk-setup.js';
import {
  phone,
  readCsv,
  readRecords,
  runCli,
  sandboxEnv,
  startServer,
  tempDir,
  writeCsv,
} from './helpers.js';

useSandbox();

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
    // The row has an id and no phone: not blank, but missing its Phone (issue 40).
    expect(status[2]).toBe('invalid: no Phone in this row (Phone Lookup: Phone is required)');
    expect(status[3]).toBe('ok');
    expect(server.sandbox.requests()).toBe(1);
    const summary = JSON.parse(ran.stdout);
    expect(summary).toMatchObject({ rows: 4, invalid: 3, blank: 0, distinct: 1, transactions: 1, ok: 1 });
  });

  it('quotes an invalid cell as typed, and names the field a row with other cells lacks (issue 40)', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [
      ['name', 'phone'],
      ['Bob', 'n/a'],
      ['Al', '=1+2'],
      ['Jane Doe', ''],
      ['', ''],
    ]);
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv'], { env, cwd: dir });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('invalid             4 (1 blank)');
    expect(ran.stdout).toContain(
      [
        '  first invalid rows (blank ones aside):',
        '    row 2: Phone must be numeric only (10 digits); got "n/a"',
        '    row 3: Phone must be numeric only (10 digits); got "=1+2"',
        '    row 4: no Phone in this row (Phone Lookup: Phone is required)',
      ].join('\n'),
    );
    expect(readRecords(join(dir, 'out.csv')).map((r) => r.status)[3]).toBe(
      'invalid: blank row (Phone Lookup: Phone is required)',
    );
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
      'Phone must be numeric only (10 digits); got "not a phone"',
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

  it('stopped at --max-transactions, the summary says to raise it, as the README does (issue 40)', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 6 }, (_, i) => [phone(100 + i)])]);
    const ran = await runCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--max-transactions', '2'],
      {
        env,
        cwd: dir,
      },
    );
    expect(ran.code).toBe(8);
    expect(ran.stdout).toContain(
      '  stopped sending: the --max-transactions budget is spent; raise --max-transactions and run the same command again to carry on (the answers already bought come from the answer cache, free)',
    );
  });
});
