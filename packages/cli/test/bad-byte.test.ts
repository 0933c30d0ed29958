// The real `enrich` binary on a UTF-8 file with one byte that is not UTF-8 (0xFC, a Latin-1 "ü",
// in row 89,999 of 100,000): refused before anything is sent (exit 2), naming the line and the
// byte, with --encoding as the way out. It used to be read as Windows-1252 (every "Müller" written
// "MÃ¼ller", exit 0); with --encoding utf-8 the byte became U+FFFD. Now no byte is ever replaced.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxServer } from '@enrich/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import {
  phone,
  recordBilling,
  sandboxEnv,
  spawnCli,
  startServer,
  stopRecording,
  tempDir,
} from './helpers.js';

let server: SandboxServer | undefined;
afterEach(async () => {
  if (server) stopRecording(server);
  await server?.close();
  server = undefined;
});

const UTF8_U = Buffer.from('ü'); // C3 BC
const LATIN1_U = Buffer.from([0xfc]); // ü in Windows-1252: never a byte of UTF-8

/** A Name,Phone file whose names are "M?ller <i>", the "ü" of row i spelled `u(i)`. */
function leads(rows: number, u: (i: number) => Buffer): Buffer {
  const parts: Buffer[] = [Buffer.from('Name,Phone\n')];
  for (let i = 1; i <= rows; i++) parts.push(Buffer.from('M'), u(i), Buffer.from(`ller ${i},${phone(i)}\n`));
  return Buffer.concat(parts);
}

/**
 * Runs `enrich phone-lookup --in in.csv --out out.csv ...extra` as a process against a sandbox;
 * with `refused`, kills it at its first paid answer.
 */
async function enrich(bytes: Buffer, extra: string[], refused: boolean) {
  const sandbox = await startServer();
  server = sandbox;
  const dir = tempDir();
  writeFileSync(join(dir, 'in.csv'), bytes);
  const child = spawnCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--quiet', ...extra], {
    env: sandboxEnv(sandbox),
    cwd: dir,
  });
  // A run that should be refused but starts paying is stopped there (today's code would buy all
  // 100,000 rows, minutes): the count of transactions then fails the test at once.
  if (refused) recordBilling(sandbox).onBilled = () => child.process.kill('SIGKILL');
  const done = await child.done;
  return { done, dir, transactions: sandbox.sandbox.transactions(), requests: sandbox.sandbox.requests() };
}

describe('a UTF-8 file with one byte that is not UTF-8', () => {
  it('is refused with exit 2 before anything is sent, naming line 90,000 and the byte 0xFC', async () => {
    const { done, dir, transactions, requests } = await enrich(
      leads(100_000, (i) => (i === 89_999 ? LATIN1_U : UTF8_U)),
      [],
      true,
    );
    expect(transactions).toBe(0);
    expect(requests).toBe(0);
    expect(done.code).toBe(2);
    expect(done.stderr).toMatch(
      /in\.csv is UTF-8 except at 1 place: the byte 0xFC on line 90,000 \(the header is line 1\)\. Nothing was sent/,
    );
    expect(done.stderr).toMatch(/if the file is Windows-1252, say --encoding windows-1252/);
    expect(done.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    expect(existsSync(join(dir, 'out.csv'))).toBe(false);
  });

  it('--encoding utf-8: refused too, nothing sent and no output written, never a U+FFFD', async () => {
    const { done, dir, transactions } = await enrich(
      leads(3, (i) => (i === 2 ? LATIN1_U : UTF8_U)),
      ['--encoding', 'utf-8'],
      true,
    );
    expect(transactions).toBe(0);
    expect(done.code).toBe(2);
    expect(done.stderr).toMatch(
      /in\.csv is read as UTF-8 \(--encoding utf-8\) but is not UTF-8 at 1 place: the byte 0xFC on line 3 \(the header is line 1\)\. Nothing was sent/,
    );
    // No output file, so no byte of the input was replaced in one (it used to hold "M\uFFFDller 2").
    expect(existsSync(join(dir, 'out.csv'))).toBe(false);
    expect(existsSync(join(dir, 'out.csv.partial'))).toBe(false);
  });

  it('--encoding windows-1252, the way out the message names, reads every byte as that code page', async () => {
    const { done, dir, transactions } = await enrich(
      leads(3, (i) => (i === 2 ? LATIN1_U : UTF8_U)),
      ['--encoding', 'windows-1252'],
      false,
    );
    expect(done.code).toBe(0);
    expect(transactions).toBe(3);
    const out = readFileSync(join(dir, 'out.csv'));
    // The user's choice, byte for byte: C3 BC is "Ã¼" in Windows-1252, FC is "ü"; the output is UTF-8.
    const names = out
      .toString('utf8')
      .split('\n')
      .slice(1, 4)
      .map((line) => line.split(',')[0]);
    expect(names).toEqual(['MÃ¼ller 1', 'Müller 2', 'MÃ¼ller 3']);
    expect(out.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf])); // a BOM: the input was not UTF-8
  });
});
