// The spend ledger (issue 24): the built server appends a line for each paid tool call and for what
// an enrich_file run spent, with client "mcp", and nothing for an answer from the cache; a ledger
// that cannot be written is logged once and never fails a call.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LedgerEntry, readLedger } from '@enrich/core';
import { type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSession, tempDir } from './helpers.js';

const KEY = 'ledger-test-key-5678';
let sandbox: SandboxServer;

beforeAll(async () => {
  sandbox = await startSandboxServer({ host: '127.0.0.1', port: 0, keys: [KEY] });
});
afterAll(() => sandbox?.close());

const envFor = (ledger: string) => ({
  ENRICH_API_KEY: KEY,
  ENRICH_BASE_URL: sandbox.url,
  ENRICH_BASE_URL_V3: sandbox.url,
  ENRICH_CACHE_DIR: tempDir(),
  ENRICH_LEDGER: ledger,
});

function entries(ledger: string): LedgerEntry[] {
  if (!existsSync(ledger)) return [];
  const read = readLedger(readFileSync(ledger, 'utf8'));
  expect(read.skipped).toBe(0);
  return read.entries;
}

describe('the spend ledger', () => {
  it('a paid call appends one line; the same call again (free, from the cache) appends nothing', async () => {
    const ledger = join(tempDir(), 'data', 'ledger.jsonl');
    const s = await startSession({ env: envFor(ledger) });
    try {
      expect((await s.call('phone_lookup', { Phone: '5550102030' })).isError).toBeFalsy();
      const origin = new URL(sandbox.url).origin;
      expect(entries(ledger)).toEqual([
        expect.objectContaining({ v: 1, operation: 'phone-lookup', origin, client: 'mcp', count: 1 }),
      ]);
      await s.call('phone_lookup', { Phone: '(555) 010-2030' });
      await s.call('phone_lookup', { Phone: '123' }); // invalid: not sent
      expect(entries(ledger)).toHaveLength(1);
      const text = readFileSync(ledger, 'utf8');
      expect(text).not.toContain('5550102030');
      expect(text).not.toContain(KEY);
    } finally {
      await s.close();
    }
  });

  it('an enrich_file run is recorded with the file base name, and spend tells this month', async () => {
    const ledger = join(tempDir(), 'ledger.jsonl');
    const dir = tempDir();
    const path = join(dir, 'leads.csv');
    writeFileSync(path, 'phone\n5550103001\n5550103002\n5550103001\n5550103003\n');
    const s = await startSession({ env: envFor(ledger), args: ['--allow-dir', dir] });
    try {
      const quote = await s.call('quote', { operation: 'phone_lookup', path });
      const { token } = quote.structuredContent as { token: string };
      const run = await s.call('enrich_file', { operation: 'phone_lookup', path, token });
      const spent = (run.structuredContent as { transactions: number }).transactions;
      expect(spent).toBe(3);
      const lines = entries(ledger);
      expect(lines.every((e) => e.file === 'leads.csv' && e.client === 'mcp')).toBe(true);
      expect(lines.reduce((sum, e) => sum + e.count, 0)).toBe(3);
      const month = (await s.call('spend')).structuredContent as { ledger: string; ledgerThisMonth: unknown };
      expect(month).toMatchObject({
        ledger,
        ledgerThisMonth: [{ origin: new URL(sandbox.url).origin, transactions: 3 }],
      });
    } finally {
      await s.close();
    }
  });

  it('with --sandbox, the origin is the embedded sandbox, without its random port', async () => {
    const ledger = join(tempDir(), 'ledger.jsonl');
    const s = await startSession({
      args: ['--sandbox'],
      env: { ENRICH_CACHE_DIR: tempDir(), ENRICH_LEDGER: ledger },
    });
    try {
      await s.call('email_verify', { Email: 'jane.doe@example.com' });
      expect(entries(ledger).map((e) => [e.origin, e.operation, e.count])).toEqual([
        ['http://127.0.0.1', 'email-verify', 1],
      ]);
    } finally {
      await s.close();
    }
  });

  it('a ledger that cannot be written is logged once, and the calls go on', async () => {
    const blocker = join(tempDir(), 'a-file');
    writeFileSync(blocker, 'not a folder');
    const s = await startSession({ env: envFor(join(blocker, 'ledger.jsonl')) });
    try {
      expect((await s.call('phone_lookup', { Phone: '5550104001' })).isError).toBeFalsy();
      expect((await s.call('phone_lookup', { Phone: '5550104002' })).isError).toBeFalsy();
      expect(s.stderr().match(/spend ledger .* could not be written/g)).toHaveLength(1);
    } finally {
      await s.close();
    }
  });
});
