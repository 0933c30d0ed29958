// Issue 38 in the MCP server (the built server over stdio, the sandbox over real HTTP on 127.0.0.1):
// the model has no tool to forget anyone, but a person forgotten while the server runs (bulk's
// forgetEverywhere, as `enrich forget` does it) is gone from the server's answer cache, and every
// later call for them is refused before the cache or the service: nothing sent, nothing kept; a
// file's quote plans nothing for them and its run sends nothing for them.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { forgetEverywhere, setRetentionDays } from '@enrich/bulk';
import { identitiesOf } from '@enrich/core';
import { type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byteScan } from '../../bulk/test/byte-scan.js';
import { startSession, tempDir } from './helpers.js';

const KEY = 'forget-test-key-2468';
const PERSON = { phone: '5550102030', email: 'jane.doe@example.com' };
let sandbox: SandboxServer;
beforeAll(async () => {
  sandbox = await startSandboxServer({ host: '127.0.0.1', port: 0, keys: [KEY] });
});
afterAll(() => sandbox?.close());

const text = (result: { content: unknown }) => (result.content as { text: string }[])[0]?.text ?? '';

describe('a forgotten person and the MCP server', () => {
  it('is gone from its cache, and refused from then on: no request, no answer from the cache', async () => {
    const cacheDir = tempDir();
    const dataDir = tempDir();
    const work = tempDir();
    const s = await startSession({
      env: {
        ENRICH_API_KEY: KEY,
        ENRICH_BASE_URL: sandbox.url,
        ENRICH_BASE_URL_V3: sandbox.url,
        ENRICH_CACHE_DIR: cacheDir,
        ENRICH_DATA_DIR: dataDir,
      },
      args: ['--allow-dir', work],
    });
    try {
      expect((await s.call('phone_lookup', { Phone: '(555) 010-2030' })).isError).toBeFalsy();
      expect((await s.call('email_verify', { Email: 'Jane.Doe@Example.com' })).isError).toBeFalsy();
      expect((await s.call('phone_lookup', { Phone: '5550109999' })).isError).toBeFalsy();
      expect(byteScan([cacheDir], PERSON).length).toBeGreaterThan(0);

      const read = identitiesOf({ Phone: '555.010.2030', Email: 'JANE.DOE@example.com' });
      if (!read.ok) throw new Error(read.message);
      const report = await forgetEverywhere({ dataDir, cacheDir }, read.identities);
      expect(report.stores).toEqual([{ store: `journal ${join(cacheDir, 'answers.jsonl')}`, removed: 2 }]);
      expect(byteScan([cacheDir, dataDir], PERSON)).toEqual([]);

      sandbox.sandbox.reset();
      for (const [tool, args] of [
        ['phone_lookup', { Phone: '5550102030' }],
        ['tcpa_verify', { phone: '+1 555 010 2030', last_name: 'Doe' }],
        ['email_verify', { Email: 'jane.doe@example.com' }],
      ] as const) {
        const refused = await s.call(tool, args);
        expect(refused.isError).toBe(true);
        expect(text(refused)).toMatch(
          /not sent: forgotten at the person's request on \d{4}-\d{2}-\d{2}; nothing was sent/,
        );
        expect(refused._meta).toMatchObject({ 'enrich/outcome': 'forgotten', 'enrich/transactionsSpent': 0 });
      }
      expect(sandbox.sandbox.requests()).toBe(0);
      // Another person is answered (from the cache: free).
      expect((await s.call('phone_lookup', { Phone: '5550109999' })).isError).toBeFalsy();

      // A file: the quote plans nothing for them, the run sends nothing for them.
      const path = join(work, 'leads.csv');
      writeFileSync(path, 'phone\n5550102030\n5550103001\n');
      const quote = await s.call('quote', { operation: 'phone_lookup', path });
      const plan = quote.structuredContent as { transactions: number; invalid: number; token: string };
      expect(plan).toMatchObject({ transactions: 1, invalid: 1 });
      expect(text(quote)).toContain("forgotten at the person's request");
      const ran = await s.call('enrich_file', { operation: 'phone_lookup', path, token: plan.token });
      expect(ran.isError).toBeFalsy();
      expect(sandbox.sandbox.requests()).toBe(1);
      expect(byteScan([cacheDir, dataDir], PERSON)).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('the retention: an answer older than it is not used by a quote or a file run', async () => {
    const cacheDir = tempDir();
    const dataDir = tempDir();
    const work = tempDir();
    const env = {
      ENRICH_API_KEY: KEY,
      ENRICH_BASE_URL: sandbox.url,
      ENRICH_BASE_URL_V3: sandbox.url,
      ENRICH_CACHE_DIR: cacheDir,
      ENRICH_DATA_DIR: dataDir,
    };
    const first = await startSession({ env, args: ['--allow-dir', work] });
    try {
      expect((await first.call('phone_lookup', { Phone: '5550104444' })).isError).toBeFalsy();
    } finally {
      await first.close();
    }
    // Bought three days ago; the user keeps answers two days.
    const journal = join(cacheDir, 'answers.jsonl');
    const threeDaysAgo = Date.now() - 3 * 86_400_000;
    writeFileSync(journal, readFileSync(journal, 'utf8').replace(/"at":\d+/g, `"at":${threeDaysAgo}`));
    setRetentionDays(dataDir, 2);
    const s = await startSession({ env, args: ['--allow-dir', work] });
    try {
      const path = join(work, 'leads.csv');
      writeFileSync(path, 'phone\n5550104444\n');
      const quote = await s.call('quote', { operation: 'phone_lookup', path });
      const plan = quote.structuredContent as { transactions: number; token: string };
      expect(plan.transactions).toBe(1);
      sandbox.sandbox.reset();
      expect(
        (await s.call('enrich_file', { operation: 'phone_lookup', path, token: plan.token })).isError,
      ).toBeFalsy();
      expect(sandbox.sandbox.requests()).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('forgotten while a call for them is under way: the answer is given once and kept nowhere', async () => {
    const cacheDir = tempDir();
    const dataDir = tempDir();
    const s = await startSession({
      env: {
        ENRICH_API_KEY: KEY,
        ENRICH_BASE_URL: sandbox.url,
        ENRICH_BASE_URL_V3: sandbox.url,
        ENRICH_CACHE_DIR: cacheDir,
        ENRICH_DATA_DIR: dataDir,
      },
    });
    sandbox.sandbox.reset();
    sandbox.sandbox.configure({ latencyMs: 1500 });
    try {
      // Another person first, so the cache exists and has an answer to keep through the forget.
      expect((await s.call('phone_lookup', { Phone: '5550109999' })).isError).toBeFalsy();
      const before = sandbox.sandbox.requests();
      const call = s.call('phone_lookup', { Phone: '(555) 010-2030' });
      // The call has passed the server's check: its request is at the service.
      while (sandbox.sandbox.requests() === before) await new Promise((r) => setTimeout(r, 20));
      const read = identitiesOf({ Phone: '5550102030' });
      if (!read.ok) throw new Error(read.message);
      await forgetEverywhere({ dataDir, cacheDir }, read.identities);
      const answered = await call;
      // Paid for: shown this once, with the reason it was not kept.
      expect(answered.isError).toBeFalsy();
      expect((answered.content as { text: string }[]).map((c) => c.text).join('\n')).toContain(
        'forgotten at their request while the call was under way',
      );
      expect(byteScan([cacheDir, dataDir], { phone: PERSON.phone })).toEqual([]);
      // The other person's answer is still kept: answered free.
      const requests = sandbox.sandbox.requests();
      expect((await s.call('phone_lookup', { Phone: '5550109999' })).isError).toBeFalsy();
      expect(sandbox.sandbox.requests()).toBe(requests);
    } finally {
      sandbox.sandbox.configure({ latencyMs: 0 });
      await s.close();
    }
  });
});
