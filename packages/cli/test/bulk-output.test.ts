// Bulk runs through the command's own entry (main), in this process, against the sandbox over real
// HTTP on 127.0.0.1: what the command puts in the output file (--fields naming an extra field, no key
// in the output, the cache or what it prints). What the engine writes (formulas neutralised, clashing
// column names, the same bytes from memory or disk): packages/bulk/test/output.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_FILE } from '../src/main.js';
import { env, reserved, server, useSandbox } from './bulk-setup.js';
import { phone, readCsv, runCli, sandboxEnv, startServer, tempDir, writeCsv } from './helpers.js';

useSandbox();

describe('the output file', () => {
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
