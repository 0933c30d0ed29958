// Bulk runs against the sandbox over real HTTP on 127.0.0.1 when the service pushes back: 429s,
// --rate, 500s and injected faults, a refused key, an allowance gone for good; and progress lines.

import { join } from 'node:path';
import { DEFAULT_RETRY_POLICY } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { DEMO_KEY } from '@enrich/sandbox';
import { describe, expect, it } from 'vitest';
import { bulk, env, fastRetries, reserved, server, useSandbox } from './bulk-setup.js';
import { phone, readRecords, recordBilling, runCli, sandboxEnv, tempDir, writeCsv } from './helpers.js';

useSandbox();

const senderFor = () => ({
  settings: { apiKey: DEMO_KEY, baseUrl: server.url, baseUrlV3: server.url },
  transport: createFetchTransport({ timeoutMs: 5000 }),
  policy: fastRetries,
  concurrency: 4,
  sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
  now: Date.now,
});

describe('when the service pushes back', () => {
  it('slows down on 429, as long as Retry-After says, and loses no row', async () => {
    server.sandbox.configure({ allowance: 5, allowanceWindowMs: 1000 });
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 15 }, (_, i) => [phone(i)])]);
    const started = Date.now();
    const ran = await runCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json', '--concurrency', '4'],
      {
        env,
        cwd: dir,
      },
    );
    const elapsed = Date.now() - started;
    expect(ran.code).toBe(0);
    const summary = JSON.parse(ran.stdout);
    expect(summary).toMatchObject({ ok: 15, errors: 0, notSent: 0, transactions: 15 });
    expect(summary.throttled).toBeGreaterThan(0);
    expect(server.sandbox.stats().byStatus['429']).toBe(summary.throttled);
    // Three windows of five: the run had to wait for two resets.
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(readRecords(join(dir, 'out.csv')).map((r) => r.status)).toEqual(Array(15).fill('ok'));
    expect(server.sandbox.transactions()).toBe(15);
  });

  it('prints plain progress lines when not on a terminal, and a summary at the end', async () => {
    server.sandbox.configure({ latencyMs: 100 });
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 30 }, (_, i) => [phone(i)])]);
    const ran = await runCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'o.csv', '--concurrency', '2', '--progress-every', '1'],
      { env, cwd: dir },
    );
    expect(ran.code).toBe(0);
    expect(ran.stderr).toMatch(
      /^Phone Lookup: \d+ rows written \(about \d+% of the file\), \d+ rows\/s, \d+ transactions; pace [\d.]+\/s, \d+ in flight \(a fixed number at a time, as set\)$/m,
    );
    expect(ran.stdout).toMatch(/^Phone Lookup: in\.csv -> o\.csv$/m);
    for (const label of [
      'rows',
      'distinct requests',
      'transactions spent',
      'ok',
      'no match',
      'invalid',
      'errors',
      'time',
    ]) {
      expect(ran.stdout).toMatch(new RegExp(`^  ${label} +\\S`, 'm'));
    }
    expect(ran.stdout).toMatch(/transactions spent +30/);
  });

  it('--rate keeps requests apart', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 11 }, (_, i) => [phone(i)])]);
    const started = Date.now();
    const ran = await runCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'o.csv', '--rate', '20/s', '--concurrency', '8'],
      {
        env,
        cwd: dir,
      },
    );
    expect(ran.code).toBe(0);
    // 11 requests at 20 a second: the last one starts 500 ms after the first.
    expect(Date.now() - started).toBeGreaterThanOrEqual(480);
  });

  it('retries 500s per the core policy, then marks the row and goes on', async () => {
    const fault = reserved('fault').phone;
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [fault], [phone(2)], [fault]]);
    const seen = recordBilling(server);
    const summary = await bulk(dir);
    expect(summary).toMatchObject({ ok: 2, errors: 2, transactions: 2, completed: true });
    const status = readRecords(join(dir, 'out.csv')).map((r) => r.status);
    expect(status[1]).toMatch(/^error: The service had an error \(500\)/);
    expect(status[3]).toBe(status[1]);
    expect(status[0]).toBe('ok');
    expect(status[2]).toBe('ok');
    // Five attempts (the policy's maximum) for the failing request, and only once for its duplicate.
    expect(seen.seen.filter((b) => b.includes(fault))).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
    // A failure is not an answer: it is not cached, so the next run tries again.
    const again = await bulk(dir);
    expect(again).toMatchObject({ fromCache: 2, transactions: 0, errors: 2 });
  });

  it('recovers from injected faults by retrying, and pays once per request', async () => {
    server.sandbox.configure({ faultRate: 0.3 });
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 60 }, (_, i) => [phone(i)])]);
    // Ten attempts: the chance that one of the 60 fails all of them is below 1 in 10,000.
    const policy = { ...fastRetries, maxAttempts: 10 };
    const summary = await bulk(dir, { sender: { ...senderFor(), policy } });
    expect(summary).toMatchObject({ ok: 60, errors: 0, transactions: 60, requests: 60 });
    expect(summary.attempts).toBeGreaterThan(60);
    expect(server.sandbox.stats().byStatus['500']).toBe(summary.attempts - 60);
    expect(server.sandbox.transactions()).toBe(60);
  });

  it('stops sending when the key is refused, and exits with the auth code', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 10 }, (_, i) => [phone(i)])]);
    const ran = await runCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'o.csv', '--json', '--concurrency', '1'],
      {
        env: sandboxEnv(server, 'not-the-key'),
        cwd: dir,
      },
    );
    expect(ran.code).toBe(4);
    expect(JSON.parse(ran.stdout)).toMatchObject({ stopped: 'auth', errors: 1, notSent: 9 });
    expect(server.sandbox.requests()).toBe(1);
    expect(ran.stdout + ran.stderr).not.toContain('not-the-key');
  });

  it('stops sending when the allowance is gone for good, and a later run carries on', async () => {
    server.sandbox.configure({ allowance: 3, retryAfterSeconds: 0 });
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 10 }, (_, i) => [phone(i)])]);
    const summary = await bulk(dir, {});
    expect(summary.transactions).toBe(3);
    expect(summary.stopped).toBe('allowance');
    expect(summary.ok).toBe(3);
    expect(summary.ok + summary.errors + summary.notSent).toBe(10);
    server.sandbox.reset();
    server.sandbox.configure({ allowance: null as unknown as number });
    const rest = await bulk(dir);
    expect(rest).toMatchObject({ ok: 10, fromCache: 3, transactions: 7 });
  });
});
