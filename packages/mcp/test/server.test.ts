// Must-show 1 of issue 26: the built server driven by the MCP SDK's own Client over stdio, against
// the sandbox on 127.0.0.1, with a distinctive key that is looked for, at the end, in everything the
// server printed (stdout and stderr), returned or wrote in its answer cache.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { OPERATIONS, PERMITTED_USE } from '@enrich/core';
import { type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_NOTE } from '../src/sandbox-note.js';
import { printed, type Session, startSession, tempDir, text } from './helpers.js';

const KEY = 'MCPCANARY-5d2e8b71-9c4f-4a06';
const FORMS = [KEY, encodeURIComponent(KEY), 'MCPCANARY'];

let sandbox: SandboxServer;
let redirecting: SandboxServer;
let echo: Server;
let echoUrl = '';
const cacheDirs: string[] = [];

function envFor(base: string, cacheDir: string, extra: Record<string, string> = {}): Record<string, string> {
  cacheDirs.push(cacheDir);
  return {
    ENRICH_API_KEY: KEY,
    ENRICH_BASE_URL: base,
    ENRICH_BASE_URL_V3: base,
    ENRICH_CACHE_DIR: cacheDir,
    ...extra,
  };
}

async function withSession<T>(
  options: Parameters<typeof startSession>[0],
  body: (s: Session) => Promise<T>,
): Promise<T> {
  const session = await startSession(options);
  try {
    return await body(session);
  } finally {
    await session.close();
  }
}

beforeAll(async () => {
  sandbox = await startSandboxServer({ host: '127.0.0.1', port: 0, keys: [KEY] });
  redirecting = await startSandboxServer({
    host: '127.0.0.1',
    port: 0,
    keys: [KEY],
    misbehave: ['redirect'],
  });
  // A service that echoes the key it received in the record it returns (and bills it).
  echo = createServer((req, res) => {
    const key = String(req.headers['x-api-key'] ?? '');
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ email: 'jane@example.com', trace: key, Echo: { Key: key } }));
    });
  });
  echo.listen(0, '127.0.0.1');
  await once(echo, 'listening');
  echoUrl = `http://127.0.0.1:${(echo.address() as { port: number }).port}`;
});

afterAll(async () => {
  await sandbox?.close();
  await redirecting?.close();
  echo?.close();
});

describe('enrich-mcp over stdio, driven by the MCP SDK client', () => {
  it('lists the nine operations with their schemas, and the free tools', async () => {
    await withSession({ env: envFor(sandbox.url, tempDir()) }, async (s) => {
      const { tools } = await s.client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual([
        'auto_append',
        'demographic_append',
        'email_append',
        'phone_append',
        'email_lookup',
        'phone_lookup',
        'email_verify',
        'tcpa_verify',
        'id_verify',
        'check_key',
        'spend',
        'quote',
        'enrich_file',
      ]);
      for (const op of OPERATIONS) {
        const tool = tools.find((t) => t.name === op.id.replaceAll('-', '_'));
        expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(op.inputs.map((f) => f.name));
        expect(Object.keys(tool?.outputSchema?.properties ?? {})).toEqual(Object.keys(op.output));
        expect(tool?.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
        // What it returns and when to use it, first; then that it is paid (issue 40).
        expect(tool?.description).toMatch(
          new RegExp(`^${op.title}: [^.]+\\..* Use it .*Paid: 1 transaction`),
        );
        expect(tool?.description).toContain(op.purpose);
      }
      const phoneLookup = tools.find((t) => t.name === 'phone_lookup');
      expect(phoneLookup?.inputSchema).toMatchObject({
        type: 'object',
        properties: { Phone: { type: 'string', description: expect.stringContaining('"(555) 010-2030"') } },
        required: ['Phone'],
        additionalProperties: false,
      });
      // The schema accepts what core normalises: a model's formatted phone is not "wrong".
      const phoneField = phoneLookup?.inputSchema.properties?.Phone as { pattern?: string } | undefined;
      const phonePattern = new RegExp(String(phoneField?.pattern));
      for (const typed of ['(555) 010-2030', '+1 555 010 2030', '5550102030'])
        expect(phonePattern.test(typed)).toBe(true);
      expect(phonePattern.test('555-CALL-NOW')).toBe(false);
      // No field but a phone speaks of phone formatting.
      for (const tool of tools)
        for (const [name, field] of Object.entries(tool.inputSchema.properties ?? {}))
          if (!/^phone$/i.test(name)) expect(JSON.stringify(field)).not.toContain('(555)');
      const tcpa = tools.find((t) => t.name === 'tcpa_verify');
      expect(Object.keys(tcpa?.inputSchema.properties ?? {})).toEqual(['phone', 'last_name']);
      const phoneAppend = tools.find((t) => t.name === 'phone_append');
      expect(phoneAppend?.inputSchema.properties).toMatchObject({
        LName: { maxLength: 15 },
        Address1: { maxLength: 60 },
      });
      const emailVerify = tools.find((t) => t.name === 'email_verify');
      expect(emailVerify?.inputSchema.properties).toMatchObject({
        Email: { maxLength: 100, format: 'email' },
      });
      for (const free of ['check_key', 'spend', 'quote']) {
        expect(tools.find((t) => t.name === free)?.annotations?.readOnlyHint).toBe(true);
      }
      expect(tools.find((t) => t.name === 'enrich_file')?.annotations?.readOnlyHint).toBe(false);
      // The rules are said once, in the instructions, not in every tool (issue 40: 27 KB before).
      const instructions = s.client.getInstructions() ?? '';
      expect(instructions.split(PERMITTED_USE)).toHaveLength(2);
      expect(instructions).toMatch(/spends one paid transaction .* a no match included/);
      expect(instructions).toMatch(/answered free from the local answer cache/);
      expect(instructions).not.toMatch(/synthetic/);
      const listed = JSON.stringify({ tools });
      expect(listed).not.toContain('consumer-report');
      expect(listed).not.toContain('answer cache, in any spelling');
      const bytes = Buffer.byteLength(listed);
      console.log(`tools/list: ${bytes} bytes; instructions: ${Buffer.byteLength(instructions)} bytes`);
      expect(bytes).toBeLessThan(22_000);
      // A file's description speaks of files, not of "each call".
      const file = tools.find((t) => t.name === 'enrich_file')?.description ?? '';
      expect(file).toMatch(/1 transaction per distinct valid request not already cached/);
      expect(file).not.toMatch(/Each call spends/);
    });
  });

  it('a call spends one transaction; the same call in another spelling, and in another session, is free', async () => {
    const cacheDir = tempDir();
    const before = sandbox.sandbox.transactions(KEY);
    const first = await withSession({ env: envFor(sandbox.url, cacheDir) }, async (s) => {
      const result = await s.call('phone_lookup', { Phone: '5550102030' });
      const again = await s.call('phone_lookup', { Phone: '(555) 010-2030' });
      expect(again.isError).toBeFalsy();
      expect(again.structuredContent).toEqual(result.structuredContent);
      expect(text(again)).toMatch(/answer cache: free, no transaction spent/);
      expect(again._meta).toMatchObject({ 'enrich/fromCache': true, 'enrich/transactionsSpent': 0 });
      const spend = await s.call('spend');
      expect(spend.structuredContent).toMatchObject({ spent: 1, answeredFromCache: 1 });
      return result;
    });
    expect(first.isError).toBeFalsy();
    expect(first._meta).toMatchObject({ 'enrich/outcome': 'record', 'enrich/transactionsSpent': 1 });
    const record = first.structuredContent as { Name: { FName: string }; Address: { Deliverable: unknown } };
    expect(record.Name.FName).toMatch(/^[A-Z]+$/);
    expect(typeof record.Address.Deliverable).toBe('boolean');
    expect(text(first)).toMatch(/This call spent 1 transaction/);

    // Another session (another process) with the same cache folder.
    await withSession({ env: envFor(sandbox.url, cacheDir) }, async (s) => {
      const later = await s.call('phone_lookup', { Phone: '+1 555.010.2030' });
      expect(later.structuredContent).toEqual(first.structuredContent);
      expect(text(later)).toMatch(/answer cache: free/);
    });
    expect(sandbox.sandbox.transactions(KEY) - before).toBe(1);
    // The CLI's journal format: one line per paid answer, filed under the service's origin.
    const lines = readFileSync(join(cacheDir, 'answers.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ v: 1, ns: sandbox.url, outcome: { kind: 'record' } });
  });

  it('a no match is a result with a reading, and coded values carry their likely meaning', async () => {
    await withSession({ env: envFor(sandbox.url, tempDir()) }, async (s) => {
      const none = await s.call('phone_lookup', { Phone: '5550000204' });
      expect(none.isError).toBeFalsy();
      expect(none.structuredContent).toEqual({});
      expect(text(none)).toMatch(/no match/);
      const tcpa = await s.call('tcpa_verify', { phone: '5550102030', last_name: 'Doe' });
      expect(tcpa.isError).toBeFalsy();
      expect(text(tcpa)).toMatch(/\(likely: /);
    });
  });

  it('invalid input is a tool error naming the field and the rule, and spends nothing', async () => {
    const requests = sandbox.sandbox.requests();
    await withSession({ env: envFor(sandbox.url, tempDir()) }, async (s) => {
      const short = await s.call('phone_lookup', { Phone: '555010203' });
      expect(short.isError).toBe(true);
      expect(text(short)).toMatch(/Phone must be 10 digits; got 9/);
      expect(text(short)).toMatch(/no transaction spent/);
      const email = await s.call('email_verify', { Email: 'j@@x.com' });
      expect(text(email)).toMatch(/Email must have exactly one @/);
      const missing = await s.call('phone_append', { FName: 'Jane' });
      expect(missing.isError).toBe(true);
      expect(text(missing)).toMatch(/LName, Address1 and Zip are required|required/);
      const spend = await s.call('spend');
      expect(spend.structuredContent).toMatchObject({ spent: 0 });
    });
    expect(sandbox.sandbox.requests()).toBe(requests);
  });

  it('the budget refuses the next paid call before sending; cached answers stay free', async () => {
    const before = sandbox.sandbox.requests();
    await withSession(
      { args: ['--max-transactions', '1'], env: envFor(sandbox.url, tempDir()) },
      async (s) => {
        expect((await s.call('email_verify', { Email: 'jane.doe@example.com' })).isError).toBeFalsy();
        const refused = await s.call('email_verify', { Email: 'omar@example.com' });
        expect(refused.isError).toBe(true);
        expect(text(refused)).toMatch(/budget .* is spent\. Nothing was sent/);
        const repeat = await s.call('email_verify', { Email: 'jane.doe@EXAMPLE.com' });
        expect(repeat.isError).toBeFalsy();
        expect(text(repeat)).toMatch(/free/);
        expect((await s.call('spend')).structuredContent).toMatchObject({ spent: 1, budget: 1, left: 0 });
      },
    );
    expect(sandbox.sandbox.requests() - before).toBe(1);
    // ENRICH_MAX_TRANSACTIONS says the same.
    await withSession(
      { env: envFor(sandbox.url, tempDir(), { ENRICH_MAX_TRANSACTIONS: '0' }) },
      async (s) => {
        expect(text(await s.call('phone_lookup', { Phone: '5550102031' }))).toMatch(/budget/);
      },
    );
    expect(sandbox.sandbox.requests() - before).toBe(1);
  });

  it('a refused key is a tool error (and check_key, free, says so)', async () => {
    const transactions = sandbox.sandbox.transactions();
    await withSession(
      { env: envFor(sandbox.url, tempDir(), { ENRICH_API_KEY: `${KEY}-WRONG` }) },
      async (s) => {
        const refused = await s.call('phone_lookup', { Phone: '5550102030' });
        expect(refused.isError).toBe(true);
        expect(text(refused)).toMatch(/401|refused/i);
        const check = await s.call('check_key');
        expect(check.isError).toBe(true);
        expect(text(check)).toMatch(/KEY REFUSED/);
      },
    );
    await withSession({ env: envFor(sandbox.url, tempDir()) }, async (s) => {
      const check = await s.call('check_key');
      expect(check.isError).toBeFalsy();
      expect(text(check)).toMatch(/key accepted/);
    });
    expect(sandbox.sandbox.transactions()).toBe(transactions);
  });

  it('a service that redirects: nothing follows it, nothing is spent', async () => {
    await withSession({ env: envFor(redirecting.url, tempDir()) }, async (s) => {
      const result = await s.call('phone_lookup', { Phone: '5550102030' });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/redirect|307/i);
      expect((await s.call('spend')).structuredContent).toMatchObject({ spent: 0 });
    });
    expect(redirecting.decoy.hits()).toBe(0);
    expect(redirecting.sandbox.transactions()).toBe(0);
  });

  it('a service that echoes the key back: the answer is kept, the key is not', async () => {
    await withSession({ env: envFor(echoUrl, tempDir()) }, async (s) => {
      const result = await s.call('email_append', {
        FName: 'Jane',
        LName: 'Doe',
        Address1: '1 Main St',
        Zip: '10001',
      });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result)).toContain('[key hidden]');
    });
  });

  it('--sandbox with no key answers a call, and every result says it is synthetic and unbilled', async () => {
    await withSession({ args: ['--sandbox'], env: { ENRICH_CACHE_DIR: tempDir() } }, async (s) => {
      const result = await s.call('email_verify', { Email: 'jane.doe@example.com' });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toHaveProperty('Result');
      const results = [
        result,
        await s.call('phone_lookup', { Phone: '(555) 010-2030' }),
        await s.call('phone_lookup', { Phone: '5550102030' }),
        await s.call('email_verify', { Email: 'not an address' }),
        await s.call('check_key'),
        await s.call('spend'),
      ];
      for (const r of results) {
        expect(r.content[0]).toEqual({ type: 'text', text: SANDBOX_NOTE });
        expect(r._meta).toMatchObject({ 'enrich/sandbox': true });
      }
      expect(SANDBOX_NOTE).toMatch(/synthetic \(made-up people, not real ones\) and nothing was billed/);
      expect(results[4]?.isError).toBeFalsy();
      expect(s.client.getInstructions()).toMatch(/every result is synthetic .* nothing is billed/);
    });
    // A real service's results carry no such note.
    await withSession({ env: envFor(sandbox.url, tempDir()) }, async (s) => {
      const result = await s.call('email_verify', { Email: 'jane.doe@example.com' });
      expect(text(result)).not.toContain('Sandbox:');
      expect(result._meta).not.toHaveProperty('enrich/sandbox');
    });
  });

  it('says what a call cost in words a reader can follow (issue 40)', async () => {
    await withSession({ env: envFor(sandbox.url, tempDir()) }, async (s) => {
      const paid = text(await s.call('email_verify', { Email: 'jane.doe+cost@example.com' }));
      expect(paid).toContain(
        'This call spent 1 transaction (so far this server has spent 1 transaction, no budget set).',
      );
      const free = text(await s.call('email_verify', { Email: 'jane.doe+cost@example.com' }));
      expect(free).toContain(
        'Answered from the answer cache: free, no transaction spent (so far this server has spent 1 transaction, no budget set).',
      );
    });
  });

  it('with no key and no --sandbox, a paid call says what to set and sends nothing', async () => {
    const requests = sandbox.sandbox.requests();
    await withSession(
      { env: { ENRICH_BASE_URL: sandbox.url, ENRICH_BASE_URL_V3: sandbox.url, ENRICH_CACHE_DIR: tempDir() } },
      async (s) => {
        const result = await s.call('phone_lookup', { Phone: '5550102039' });
        expect(result.isError).toBe(true);
        expect(text(result)).toMatch(/ENRICH_API_KEY is not set.*--sandbox/);
      },
    );
    expect(sandbox.sandbox.requests()).toBe(requests);
  });

  it('the key appears nowhere: not on stdout, stderr, in a result or in the answer cache', () => {
    const cacheText = cacheDirs
      .map((dir) => {
        try {
          return readFileSync(join(dir, 'answers.jsonl'), 'utf8');
        } catch {
          return '';
        }
      })
      .join('\n');
    const everything = `${printed.join('\n')}\n${cacheText}`;
    expect(everything.length).toBeGreaterThan(10_000);
    expect(everything).toContain('[key hidden]');
    for (const form of FORMS) expect(everything.split(form).length - 1, form).toBe(0);
  });
});
