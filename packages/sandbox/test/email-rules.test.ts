// Email as the API description states it, and only so: "e-mail address, max 100 characters". Over
// real HTTP on 127.0.0.1. What core's checkEmail adds for clients (64 bytes before the @, a host name
// with a top-level domain of letters, no quoted names or IP literals, a lower-case domain) is not the
// API's, so the sandbox takes it: each such case is checked to be one core refuses (or changes), so
// that the test shows the difference rather than two agreeing rules.
import { OPERATIONS, type Operation, validate } from '@enrich/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_KEY, type SandboxServer, startSandboxServer } from '../src/index.js';

let server: SandboxServer;
beforeAll(async () => {
  server = await startSandboxServer({ port: 0, latencyMs: 0 });
});
afterAll(() => server.close());
beforeEach(() => server.sandbox.reset());

const byId = (id: string) => OPERATIONS.find((op) => op.id === id) as Operation;
const emailVerify = byId('email-verify');

async function post(op: Operation, body: Record<string, string>) {
  const response = await fetch(server.url + op.path, {
    method: 'POST',
    headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: JSON.parse(text || 'null') };
}

const local65 = `${'a'.repeat(65)}@example.com`;

describe("what the API does not refuse, though core's client checks do", () => {
  it.each([
    ['65 bytes before the @ (the issue 42 case)', local65],
    ['64 two-byte letters before the @ (128 bytes)', `${'ü'.repeat(64)}@example.com`],
    ['a quoted name', '"jane doe"@example.com'],
    ['an IP literal', 'jane@[192.0.2.1]'],
    ['a one-label host', 'jane@localhost'],
    ['a top-level domain of digits', 'jane@example.123'],
  ])('%s: 200, and one transaction', async (_, Email) => {
    expect(validate(emailVerify, { Email }).ok).toBe(false);
    const { status, json } = await post(emailVerify, { Email });
    expect(status).toBe(200);
    expect(json.Email).toBe(Email);
    expect(server.sandbox.transactions()).toBe(1);
  });

  it('a domain in capitals: taken as given (core sends it in lower case; the API does not ask that)', async () => {
    const Email = 'Jane@EXAMPLE.COM';
    expect(validate(emailVerify, { Email })).toMatchObject({
      ok: true,
      input: { Email: 'Jane@example.com' },
    });
    const { status, json } = await post(emailVerify, { Email });
    expect(status).toBe(200);
    expect(json.Email).toBe(Email);
  });

  it('100 characters in all is within the bound, counted as characters, not bytes', async () => {
    const hundred = `${'a'.repeat(88)}@example.com`;
    expect(hundred).toHaveLength(100);
    expect((await post(emailVerify, { Email: hundred })).status).toBe(200);
    // Letters outside the BMP: 100 characters, 188 UTF-16 code units.
    const wide = `${'𝒶'.repeat(88)}@example.com`;
    expect([...wide]).toHaveLength(100);
    expect((await post(emailVerify, { Email: wide })).status).toBe(200);
    expect((await post(emailVerify, { Email: `𝒶${wide}` })).json.error).toContain('got 101');
  });
});

describe('what the API refuses: 400 naming the field and the rule, nothing billed', () => {
  it.each([
    ['over 100 characters', `${'a'.repeat(89)}@example.com`, 'Email must be at most 100 characters; got 101'],
    ['no @', 'jane.example.com', 'Email must be an e-mail address'],
    ['nothing before the @', '@example.com', 'Email must be an e-mail address'],
    ['nothing after the @', 'jane@', 'Email must be an e-mail address'],
    ['a space in the domain', 'jane@example .com', 'Email must be an e-mail address'],
  ])('%s', async (_, Email, message) => {
    const { status, json } = await post(emailVerify, { Email });
    expect(status).toBe(400);
    expect(json.error).toContain(message);
    expect(server.sandbox.transactions()).toBe(0);
  });

  it('every operation that takes Email applies the same rule, with its other rules as before', async () => {
    const append = byId('email-lookup');
    expect((await post(append, { Email: local65 })).status).toBe(200);
    expect((await post(append, { Email: 'jane' })).status).toBe(400);
    const idVerify = byId('id-verify');
    expect((await post(idVerify, { Email: local65, Zip: '12345' })).status).toBe(200);
    // Core still checks the other fields and the requirement rules, with the address in place.
    const wrongZip = await post(idVerify, { Email: local65, Zip: '1234' });
    expect(wrongZip.status).toBe(400);
    expect(wrongZip.json.error).toMatch(/Zip/);
    const autoAppend = byId('auto-append');
    const partial = await post(autoAppend, { Email: '', FullName: 'Jane Doe' });
    expect(partial.status).toBe(400);
  });
});
