// Bulk runs against the sandbox over real HTTP on 127.0.0.1: what the output file holds (formulas
// neutralised, clashing column names, extra fields, the same bytes from memory or disk, no key).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_FILE } from '../src/main.js';
import { bulk, env, reserved, server, useSandbox } from './bulk-setup.js';
import { phone, readCsv, runCli, sandboxEnv, startServer, tempDir, writeCsv } from './helpers.js';

useSandbox();

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
