// Workbooks through the real `enrich` binary, as a child process against a sandbox over real HTTP:
// a zip bomb (a workbook of about 400 KB whose one shared string unpacks to 400 MiB, built
// streaming by packages/bulk/test/zip-bomb.ts) is refused before anything is sent, in words that
// name the part and the limit, with no stack trace, no output written, and no paid transaction.
// (What a workbook keeps: packages/bulk/test/xlsx.test.ts and xlsx-kept.test.ts.)
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeBombWorkbook } from '../../bulk/test/zip-bomb.js';
import { phone, spawnCli, tempDir } from './helpers.js';
import { env, server, useSandbox } from './process-setup.js';

useSandbox();

describe('enrich on a workbook that is a zip bomb', () => {
  it('refuses it before anything is sent: the part and the limit named, no stack trace, nothing spent', async () => {
    const cwd = tempDir();
    await writeBombWorkbook(join(cwd, 'book.xlsx'), phone(1), 400);
    expect(statSync(join(cwd, 'book.xlsx')).size).toBeLessThan(1024 * 1024);

    const ran = await spawnCli(['phone-lookup', '--in', 'book.xlsx', '--out', 'out.xlsx'], { env, cwd }).done;
    expect(ran.stderr).toContain(
      'book.xlsx is refused: its part xl/sharedStrings.xml unpacks to 400 MiB, over the limit of 256 MiB for a part other than a sheet.',
    );
    expect(ran.stderr).toContain('Nothing was sent.');
    // A message for the user, not a crash: no stack frames, no "rows were left unwritten (a bug)".
    expect(`${ran.stdout}${ran.stderr}`).not.toMatch(/^\s+at |\(a bug\)|Error:/m);
    expect(ran.code).not.toBe(0);
    expect(ran.signal).toBeNull();
    expect(existsSync(join(cwd, 'out.xlsx'))).toBe(false);
    expect(server.sandbox.stats()).toMatchObject({ requests: 0, transactions: 0 });
  });
});
