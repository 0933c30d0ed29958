// Reading the spend ledger, bounded (ledger-read.ts): chunk by chunk, the same entries as reading it
// whole, whatever the chunk size; a run of bytes too long to be a line skipped without being held;
// anything but a regular file refused before a byte is read.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LedgerEntry, ledgerLine, readLedger } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { LedgerFile, LedgerNotAFile } from '../src/index.js';
import { readLedgerFile } from '../src/store/ledger-read.js';
import { useTempDir } from './fixtures.js';

const at = useTempDir();

const entry = (i: number): LedgerEntry => ({
  v: 1,
  at: '2026-11-25T10:00:00.000Z',
  operation: 'phone-lookup',
  origin: 'https://api.tdg1.io',
  client: 'cli',
  run: `run-${i}`,
  // A name with characters of several bytes, so that chunks cut through them.
  file: `leads-é€😀-${i}.csv`,
  count: i + 1,
});

describe('readLedgerFile', () => {
  it('gives what reading the file whole gives, for chunks cutting lines and characters anywhere', () => {
    const path = join(at.dir, 'ledger.jsonl');
    const lines = Array.from({ length: 40 }, (_, i) => ledgerLine(entry(i)));
    // A blank line, a line that is not a ledger line, and a last line torn by a crash.
    const text = `${lines.slice(0, 20).join('')}\nnot a ledger line\n${lines.slice(20).join('')}{"v":1,"at":"20`;
    writeFileSync(path, text);
    const whole = readLedger(text);
    expect(whole.entries).toHaveLength(40);
    expect(whole.skipped).toBe(2);
    for (const chunkBytes of [1, 2, 3, 7, 64, 1000, 1 << 20]) {
      expect(readLedgerFile(path, chunkBytes)).toEqual(whole);
    }
  });

  it('skips a run of bytes too long to be a line, once, without holding it, and reads on', () => {
    const path = join(at.dir, 'ledger.jsonl');
    writeFileSync(path, `${ledgerLine(entry(0))}${'x'.repeat(200_000)}\n${ledgerLine(entry(1))}`);
    for (const chunkBytes of [4096, 1 << 20]) {
      const read = readLedgerFile(path, chunkBytes);
      expect(read.entries.map((e) => e.count)).toEqual([1, 2]);
      expect(read.skipped).toBe(1);
    }
  });

  it('refuses a device, a folder and a FIFO before reading a byte (reading them never ended)', () => {
    const fifo = join(at.dir, 'fifo');
    const refused = ['/dev/zero', '/dev/full', at.dir].filter((path) => existsSync(path));
    if (spawnSync('mkfifo', [fifo]).status === 0) refused.push(fifo);
    for (const path of refused) {
      expect(() => new LedgerFile(path).read()).toThrow(LedgerNotAFile);
    }
    expect(() => readLedgerFile('/dev/zero')).toThrow(
      'the spend ledger /dev/zero is a device, not a regular file',
    );
  });

  it('a missing ledger is an empty one', () => {
    expect(new LedgerFile(join(at.dir, 'none.jsonl')).read()).toEqual({ entries: [], skipped: 0 });
  });
});
