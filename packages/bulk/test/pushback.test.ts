// Runs against the sandbox when the service pushes back (sender.ts with core's retry policy): 429s
// with Retry-After, 500s and injected faults, an allowance gone for good.
import { join } from 'node:path';
import { DEFAULT_RETRY_POLICY } from '@enrich/core';
import { ADMIN_PREFIX, type SandboxServer } from '@enrich/sandbox';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runBulk } from '../src/run/run-bulk.js';
import { readRecords, reserved, useSandbox, writeCsv } from './fixtures.js';
import { phone, sandboxRun } from './sandbox-run.js';

const at = useSandbox();

const files = (dir: string) => ({ inPath: join(dir, 'in.csv'), outPath: join(dir, 'out.csv') });

/** Every request body that reaches the sandbox (not its admin paths), in order, until the test ends. */
function bodiesSeen(server: SandboxServer): string[] {
  const seen: string[] = [];
  const original = server.sandbox.handle;
  const handle = original.bind(server.sandbox);
  server.sandbox.handle = (request) => {
    if (!request.path.startsWith(ADMIN_PREFIX)) seen.push(request.body);
    return handle(request);
  };
  onTestFinished(() => {
    server.sandbox.handle = original;
  });
  return seen;
}

describe('when the service pushes back', () => {
  it('slows down on 429, as long as Retry-After says, and loses no row', async () => {
    const { dir, server } = at;
    server.sandbox.configure({ allowance: 5, allowanceWindowMs: 1000 });
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 15 }, (_, i) => [phone(i)])]);
    const started = Date.now();
    const summary = await runBulk(sandboxRun(server, files(dir), { concurrency: 4 }));
    const elapsed = Date.now() - started;
    expect(summary.completed).toBe(true);
    expect(summary).toMatchObject({ ok: 15, errors: 0, notSent: 0, transactions: 15 });
    expect(summary.throttled).toBeGreaterThan(0);
    expect(server.sandbox.stats().byStatus['429']).toBe(summary.throttled);
    // Three windows of five: the run had to wait for two resets.
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(readRecords(join(dir, 'out.csv')).map((r) => r.status)).toEqual(Array(15).fill('ok'));
    expect(server.sandbox.transactions()).toBe(15);
  });

  it('retries 500s per the core policy, then marks the row and goes on', async () => {
    const { dir, server } = at;
    const fault = reserved('fault').phone;
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [fault], [phone(2)], [fault]]);
    const seen = bodiesSeen(server);
    const summary = await runBulk(sandboxRun(server, files(dir)));
    expect(summary).toMatchObject({ ok: 2, errors: 2, transactions: 2, completed: true });
    const status = readRecords(join(dir, 'out.csv')).map((r) => r.status);
    expect(status[1]).toMatch(/^error: The service had an error \(500\)/);
    expect(status[3]).toBe(status[1]);
    expect(status[0]).toBe('ok');
    expect(status[2]).toBe('ok');
    // Five attempts (the policy's maximum) for the failing request, and only once for its duplicate.
    expect(seen.filter((b) => b.includes(fault))).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
    // A failure is not an answer: it is not cached, so the next run tries again.
    const again = await runBulk(sandboxRun(server, files(dir)));
    expect(again).toMatchObject({ fromCache: 2, transactions: 0, errors: 2 });
  });

  it('recovers from injected faults by retrying, and pays once per request', async () => {
    const { dir, server } = at;
    server.sandbox.configure({ faultRate: 0.3 });
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 60 }, (_, i) => [phone(i)])]);
    // Ten attempts: the chance that one of the 60 fails all of them is below 1 in 10,000.
    const options = sandboxRun(server, files(dir));
    const policy = { ...(options.policy ?? DEFAULT_RETRY_POLICY), maxAttempts: 10 };
    const summary = await runBulk({ ...options, policy });
    expect(summary).toMatchObject({ ok: 60, errors: 0, transactions: 60, requests: 60 });
    expect(summary.attempts).toBeGreaterThan(60);
    expect(server.sandbox.stats().byStatus['500']).toBe(summary.attempts - 60);
    expect(server.sandbox.transactions()).toBe(60);
  });

  it('stops sending when the allowance is gone for good, and a later run carries on', async () => {
    const { dir, server } = at;
    server.sandbox.configure({ allowance: 3, retryAfterSeconds: 0 });
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 10 }, (_, i) => [phone(i)])]);
    const summary = await runBulk(sandboxRun(server, files(dir)));
    expect(summary.transactions).toBe(3);
    expect(summary.stopped).toBe('allowance');
    expect(summary.ok).toBe(3);
    expect(summary.ok + summary.errors + summary.notSent).toBe(10);
    server.sandbox.reset();
    server.sandbox.configure({ allowance: Number.POSITIVE_INFINITY });
    const rest = await runBulk(sandboxRun(server, files(dir)));
    expect(rest).toMatchObject({ ok: 10, fromCache: 3, transactions: 7 });
  });
});
