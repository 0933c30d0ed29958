// The real `enrich` binary in a pipeline whose reader goes away: `enrich ... --in - --out - < leads.csv
// | head -1`. The test is the reader: it reads the first line of standard output and closes its end
// of the pipe. The output is far larger than a pipe holds (64 KiB), so the command is still writing
// when the reader leaves and its next write fails (EPIPE). It must end as shells expect of a program
// whose reader left (141, 128 + SIGPIPE), with no stack trace, and the money must hold: the answers
// the journal holds, the ledger's count and the sandbox's count agree.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { LedgerFile } from '@enrich/bulk';
import { describe, expect, it } from 'vitest';
import { CACHE_FILE } from '../src/main.js';
import { BIN, phone, tempDir, writeCsv } from './helpers.js';
import { env, journalKeys, server, useSandbox } from './process-setup.js';

useSandbox();

const DISTINCT = 200;
/** 3,000 rows of about 150 bytes out: some 450 KB, seven times what a pipe holds. */
const ROWS = 3000;

describe('a reader that closes the pipe', () => {
  it('--out - read by `head -1`: exit 141, no stack trace, and journal = ledger = sandbox', async () => {
    const cwd = tempDir();
    const input = writeCsv(join(cwd, 'leads.csv'), [
      ['phone'],
      ...Array.from({ length: ROWS }, (_, i) => [phone(i % DISTINCT)]),
    ]);
    const ledger = join(cwd, 'ledger.jsonl');
    const stdin = openSync(input, 'r');
    const child = spawn(process.execPath, [BIN, 'phone-lookup', '--in', '-', '--out', '-'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env, ENRICH_LEDGER: ledger },
      // Standard input is the file itself, as `< leads.csv` gives it.
      stdio: [stdin, 'pipe', 'pipe'],
    });
    closeSync(stdin);
    const { stdout, stderr: errors } = child;
    if (!stdout || !errors) throw new Error('the child has no pipes');
    let stderr = '';
    errors.on('data', (d) => {
      stderr += String(d);
    });
    // The reader: the first line, then its end of the pipe closed, as `head -1` does.
    let first = '';
    stdout.on('data', (d) => {
      first += String(d);
      if (first.includes('\n')) stdout.destroy();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));

    expect(first.split('\n')[0]).toMatch(/^phone,/);
    expect(stderr).not.toMatch(/unexpected error|EPIPE|\n\s+at /);
    expect(code).toBe(141);
    const counted = {
      service: server.sandbox.stats().transactions,
      journal: journalKeys(join(cwd, CACHE_FILE)).size,
      ledger: new LedgerFile(ledger).read().entries.reduce((sum, e) => sum + e.count, 0),
    };
    expect(counted).toEqual({ service: DISTINCT, journal: DISTINCT, ledger: DISTINCT });
  });
});
