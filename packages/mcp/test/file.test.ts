// Must-show 2 of issue 26: enrich_file never spends without a quote's token (and, where the client
// can be asked, the person's yes), and the plan's figure is what the run then spends.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { acquireLock } from '@enrich/bulk';
import { type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSession, tempDir, text } from './helpers.js';

const KEY = 'file-test-key-1234';
let sandbox: SandboxServer;

beforeAll(async () => {
  sandbox = await startSandboxServer({ host: '127.0.0.1', port: 0, keys: [KEY] });
});
afterAll(() => sandbox?.close());

function leads(dir: string): string {
  const path = join(dir, 'leads.csv');
  writeFileSync(
    path,
    'name,phone\nJane,(555) 010-2030\nOmar,5550102031\nJane again,555-010-2030\nBad,123\nKim,5550102032\n',
  );
  return path;
}

const env = (cacheDir: string) => ({
  ENRICH_API_KEY: KEY,
  ENRICH_BASE_URL: sandbox.url,
  ENRICH_BASE_URL_V3: sandbox.url,
  ENRICH_CACHE_DIR: cacheDir,
});

describe('quote and enrich_file', () => {
  it('a call without the token spends nothing; with it, the run spends what the plan said', async () => {
    const dir = tempDir();
    const path = leads(dir);
    const session = await startSession({ env: env(tempDir()), cwd: dir });
    try {
      const before = sandbox.sandbox.transactions(KEY);
      // Answer one of the three distinct phones first: the plan counts it as cached.
      await session.call('phone_lookup', { Phone: '5550102031' });
      const noToken = await session.call('enrich_file', { operation: 'phone_lookup', path });
      expect(noToken.isError).toBeFalsy();
      expect(text(noToken)).toMatch(/Not run: enrich_file runs only with the token/);
      expect(sandbox.sandbox.transactions(KEY) - before).toBe(1);

      const quote = await session.call('quote', { operation: 'phone_lookup', path });
      const plan = quote.structuredContent as {
        transactions: number;
        distinct: number;
        cached: number;
        token: string;
        out: string;
      };
      expect(plan).toMatchObject({ rows: 5, invalid: 1, distinct: 3, cached: 1, transactions: 2 });
      expect(sandbox.sandbox.transactions(KEY) - before).toBe(1);

      const wrong = await session.call('enrich_file', {
        operation: 'phone_lookup',
        path,
        token: 'not-a-token',
      });
      expect(text(wrong)).toMatch(/token is unknown/);
      expect(sandbox.sandbox.transactions(KEY) - before).toBe(1);

      const ran = await session.call('enrich_file', { operation: 'phone_lookup', path, token: plan.token });
      expect(ran.isError).toBeFalsy();
      const summary = ran.structuredContent as {
        transactions: number;
        output: string;
        ok: number;
        breakdown: { rows: number; fields: { column: string; values: { count: number }[] }[] };
      };
      expect(summary.transactions).toBe(plan.transactions);
      // What came back: every ok row has one Deliverable value, counted.
      expect(summary.breakdown.rows).toBe(5);
      const [deliverable] = summary.breakdown.fields;
      expect(deliverable?.column).toBe('Deliverable');
      expect(deliverable?.values.reduce((sum, v) => sum + v.count, 0)).toBe(summary.ok);
      expect(text(ran)).toMatch(/What came back:\nrows: ok \d+/);
      expect(sandbox.sandbox.transactions(KEY) - before - 1).toBe(plan.transactions);
      const out = readFileSync(plan.out, 'utf8').trim().split('\n');
      expect(out).toHaveLength(6);
      expect(out[0]).toMatch(/^name,phone,FName,.*,status$/);

      // The token was for one run only.
      const reused = await session.call('enrich_file', {
        operation: 'phone_lookup',
        path,
        token: plan.token,
      });
      expect(text(reused)).toMatch(/Not run/);
      expect((reused.structuredContent as { transactions: number }).transactions).toBe(0);
      expect(sandbox.sandbox.transactions(KEY) - before - 1).toBe(plan.transactions);
      expect((await session.call('spend')).structuredContent).toMatchObject({ spent: 3 });
    } finally {
      await session.close();
    }
  });

  it('a run waits while another run holds the answer cache, then runs: the busy cache known by its class', async () => {
    const dir = tempDir();
    const path = leads(dir);
    const cacheDir = tempDir();
    const session = await startSession({ env: env(cacheDir), cwd: dir });
    try {
      const quote = await session.call('quote', { operation: 'phone_lookup', path });
      const plan = quote.structuredContent as { transactions: number; token: string };
      // This test process plays a CLI run that holds the cache for a second and a half.
      const lock = acquireLock(join(cacheDir, 'answers.jsonl'), 'answer cache');
      const released = new Promise<void>((resolve) =>
        setTimeout(() => {
          lock.release();
          resolve();
        }, 1500),
      );
      const ran = await session.call('enrich_file', { operation: 'phone_lookup', path, token: plan.token });
      await released;
      expect(text(ran)).not.toMatch(/Another enrich run/);
      expect(ran.isError).toBeFalsy();
      expect((ran.structuredContent as { transactions: number }).transactions).toBe(plan.transactions);
    } finally {
      await session.close();
    }
  });

  it('where the client supports elicitation, the person is asked; a no spends nothing', async () => {
    const dir = tempDir();
    const path = leads(dir);
    const asked: string[] = [];
    let answer: 'accept' | 'decline' = 'decline';
    const session = await startSession({
      env: env(tempDir()),
      // A client that declares its roots: the file tools work inside them.
      roots: [dir],
      elicit: (message) => {
        asked.push(message);
        return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
      },
    });
    try {
      const before = sandbox.sandbox.transactions(KEY);
      const first = (await session.call('quote', { operation: 'phone_lookup', path })).structuredContent as {
        token: string;
        transactions: number;
      };
      const declined = await session.call('enrich_file', {
        operation: 'phone_lookup',
        path,
        token: first.token,
      });
      expect(declined.isError).toBe(true);
      expect(text(declined)).toMatch(/declined/);
      expect(asked[0]).toMatch(/spends up to 3 paid transactions/);
      expect(sandbox.sandbox.transactions(KEY)).toBe(before);

      answer = 'accept';
      const second = (await session.call('quote', { operation: 'phone_lookup', path })).structuredContent as {
        token: string;
        transactions: number;
      };
      const ran = await session.call('enrich_file', { operation: 'phone_lookup', path, token: second.token });
      expect(ran.isError).toBeFalsy();
      expect(sandbox.sandbox.transactions(KEY) - before).toBe(second.transactions);
    } finally {
      await session.close();
    }
  });

  it('past --confirm-above, a paid call asks first (where it can), and a no spends nothing', async () => {
    const session = await startSession({
      args: ['--confirm-above', '1'],
      env: env(tempDir()),
      elicit: () => ({ action: 'decline' }),
    });
    try {
      const before = sandbox.sandbox.transactions(KEY);
      expect((await session.call('phone_lookup', { Phone: '5550102040' })).isError).toBeFalsy();
      const second = await session.call('phone_lookup', { Phone: '5550102041' });
      expect(second.isError).toBe(true);
      expect(text(second)).toMatch(/declined/);
      expect(sandbox.sandbox.transactions(KEY) - before).toBe(1);
    } finally {
      await session.close();
    }
  });
});
