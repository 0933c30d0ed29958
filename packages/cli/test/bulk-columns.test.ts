// Bulk runs through the command's own entry (main), in this process, against the sandbox over real
// HTTP on 127.0.0.1: which input column feeds which field.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { getOperation, outputColumns } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { env, server, useSandbox } from './bulk-setup.js';
import { readCsv, readRecords, runCli, tempDir, writeCsv } from './helpers.js';

useSandbox();

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
