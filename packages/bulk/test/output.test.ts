// What the output file holds (output-columns.ts, output-file.ts): the header (output columns renamed
// where an input column has their name), values a spreadsheet would run neutralised, the input's
// columns as they are, and the same bytes whether answers come from memory or the cache file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getOperation } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { outputHeader } from '../src/run/output-columns.js';
import { runBulk } from '../src/run/run-bulk.js';
import { readCsv, reserved, useSandbox, writeCsv } from './fixtures.js';
import { phone, sandboxRun } from './sandbox-run.js';

const at = useSandbox();

const files = (dir: string) => ({ inPath: join(dir, 'in.csv'), outPath: join(dir, 'out.csv') });

describe('output header', () => {
  it('appends output columns and status, renaming those an input column already has', () => {
    const op = getOperation('email-verify');
    expect(outputHeader(op, ['email', 'Result'], ['Email', 'Result'])).toEqual([
      'email',
      'Result',
      'Email (email-verify)',
      'Result (email-verify)',
      'status',
    ]);
  });
});

describe('the output file', () => {
  it('neutralises values a spreadsheet would run as formulas, and leaves input columns alone', async () => {
    const { dir, server } = at;
    const formula = reserved('formula').phone;
    writeCsv(join(dir, 'in.csv'), [
      ['phone', 'note'],
      [formula, '=my own note'],
      [phone(1), 'plain'],
    ]);
    const summary = await runBulk(sandboxRun(server, files(dir)));
    expect(summary.completed).toBe(true);
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
    const { dir, server } = at;
    writeCsv(join(dir, 'in.csv'), [
      ['Phone', 'Zip', 'status'],
      [phone(1), '02134', 'lead'],
    ]);
    await runBulk(sandboxRun(server, files(dir), { columns: ['FName', 'Zip'] }));
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

  it('writes the same bytes whether answers come from memory or are read back from the cache file', async () => {
    const { dir, server } = at;
    writeCsv(join(dir, 'in.csv'), [
      ['phone'],
      ...Array.from({ length: 200 }, (_, i) => [phone((i * 7) % 37)]),
    ]);
    await runBulk(sandboxRun(server, files(dir)));
    const fromMemory = readFileSync(join(dir, 'out.csv'));
    const fromDisk = await runBulk(sandboxRun(server, files(dir), { memoryAnswers: 1 }));
    expect(fromDisk.transactions).toBe(0);
    expect(readFileSync(join(dir, 'out.csv')).equals(fromMemory)).toBe(true);
  });
});
