// POST /rows, for Databricks' http_request (its `json` argument is the body; the answer's `text` is
// read with from_json), Spark or a script: named fields per row, results in order, a budget per job.
import type { SandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Instance, phones, post, serviceEnv, startInstance, startSandbox } from './helpers.js';

let sandbox: SandboxServer;
let instance: Instance;

beforeAll(async () => {
  sandbox = await startSandbox();
  instance = await startInstance({ env: serviceEnv(sandbox) });
});

afterAll(async () => {
  await instance?.stop();
  await sandbox?.close();
});

describe('POST /rows', () => {
  it('answers each row in order, fields named as the API names them', async () => {
    const answer = await post(instance.url, '/rows', {
      operation: 'email-verify',
      rows: [{ Email: 'jane@example.com' }, { email: 'JOE@Example.COM' }, { Email: 'not an address' }, {}],
    });
    expect(answer.status).toBe(200);
    const results = answer.json.results as Record<string, unknown>[];
    expect(results[0]).toEqual({ status: 'ok', Email: expect.any(String), Result: expect.any(String) });
    expect(results[1]?.status).toBe('ok');
    expect(results[2]?.status).toMatch(/^invalid: Email/);
    expect(results[3]?.status).toMatch(/^invalid: blank row/);
  });

  it('keeps to max_transactions per query_id, and refuses a budget without one', async () => {
    const before = sandbox.sandbox.transactions();
    const rows = phones(8, 9000).map((Phone) => ({ Phone }));
    const job = { operation: 'phone-lookup', max_transactions: 5, query_id: 'spark-job-1' };
    const first = await post(instance.url, '/rows', { ...job, rows });
    expect((first.json.results as { status: string }[]).map((r) => r.status)).toEqual([
      ...Array(5).fill('ok'),
      ...Array(3).fill('budget'),
    ]);
    expect(sandbox.sandbox.transactions() - before).toBe(5);
    const lost = await post(instance.url, '/rows', { operation: 'phone-lookup', max_transactions: 5, rows });
    expect(lost.status).toBe(400);
    expect(lost.json.errorMessage).toMatch(/"max_transactions" needs the query's id/);
  });

  it('gives back to the monthly cap what a failure did not spend', async () => {
    const capped = await startInstance({
      args: ['--max-transactions-per-month', '3'],
      env: serviceEnv(sandbox),
    });
    try {
      const before = sandbox.sandbox.transactions();
      // The service fails this row (500) through every retry: reserved, sent, not paid, refunded.
      const failing = await post(capped.url, '/rows', {
        operation: 'phone-lookup',
        rows: [{ Phone: '5550000500' }],
      });
      expect(failing.status).toBe(503);
      const rows = phones(3, 9500).map((Phone) => ({ Phone }));
      const answer = await post(capped.url, '/rows', { operation: 'phone-lookup', rows });
      expect(answer.status).toBe(200);
      expect((answer.json.results as { status: string }[]).map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
      expect(sandbox.sandbox.transactions() - before).toBe(3);
      const over = await post(capped.url, '/rows', {
        operation: 'phone-lookup',
        rows: [{ Phone: phones(1, 9600)[0] }],
      });
      expect(over.status).toBe(400);
      expect(over.json.errorMessage).toMatch(/monthly cap \(--max-transactions-per-month 3\)/);
    } finally {
      await capped.stop();
    }
  });
});
