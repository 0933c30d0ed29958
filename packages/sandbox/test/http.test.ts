// Drives every endpoint of the sandbox over real HTTP on 127.0.0.1.
import { request as httpsRequest } from 'node:https';
import { OPERATIONS, type Operation, type OutputField } from '@enrich/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_HEADER, DEMO_KEY, RESERVED, type SandboxServer, startSandboxServer } from '../src/index.js';

let server: SandboxServer;
beforeAll(async () => {
  server = await startSandboxServer({ port: 0 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.sandbox.reset();
  server.sandbox.configure({ allowance: Number.POSITIVE_INFINITY, faultRate: 0, latencyMs: 0 });
});

async function post(op: Operation, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(server.url + op.path, {
    method: 'POST',
    headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: text ? JSON.parse(text) : undefined,
  };
}

const byId = (id: string) => OPERATIONS.find((op) => op.id === id) as Operation;
const phoneLookup = byId('phone-lookup');

function expectType(field: OutputField, value: unknown, where: string) {
  if (field.type === 'object') {
    expect(value, where).toBeTypeOf('object');
    for (const [leaf, spec] of Object.entries(field.fields)) {
      expect(value as object, `${where}.${leaf}`).toHaveProperty([leaf]);
      expectType(spec, (value as Record<string, unknown>)[leaf], `${where}.${leaf}`);
    }
    return;
  }
  if (field.nullable && value === null) return;
  if (value === '') return; // unknown values are empty strings, whatever the type
  expect(typeof value, where).toBe(field.type);
}

describe('200: every output field of every operation, with its type', () => {
  for (const op of OPERATIONS) {
    it(op.title, async () => {
      const { status, json } = await post(op, op.example);
      expect(status).toBe(200);
      expect(Object.keys(json).sort()).toEqual(Object.keys(op.output).sort());
      for (const [name, field] of Object.entries(op.output)) expectType(field, json[name], name);
    });
  }

  it('typed fields carry values of their type, not only empty strings', async () => {
    const phoneAppend = byId('phone-append');
    const { json } = await post(phoneAppend, phoneAppend.example);
    expect(Number.isInteger(json.PHV)).toBe(true);
    expect(json.FirstSeen).toMatch(/^\d{1,2}\/\d{1,2}\/\d{4}$/);
    const lookup = await post(phoneLookup, { Phone: '5550102031' });
    expect(typeof lookup.json.Address.Deliverable).toBe('boolean');
    expect(lookup.json.Address.ValDate).toMatch(/^\d{1,2}\/\d{1,2}\/\d{4}$/);
    const emailLookup = await post(byId('email-lookup'), { Email: 'someone@example.org' });
    expect(emailLookup.json.Address.ValDate).toMatch(/^\d{8}$/);
    expect(typeof emailLookup.json.Address.Deliverable).toBe('string');
  });
});

describe('determinism', () => {
  it('the same input gives the same answer twice', async () => {
    for (const op of OPERATIONS) {
      const first = await post(op, op.example);
      const second = await post(op, op.example);
      expect(second.text).toBe(first.text);
    }
  });

  it('different inputs give varied records', async () => {
    const names = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const { json } = await post(phoneLookup, { Phone: `55501020${String(i).padStart(2, '0')}` });
      names.add(`${json.Name.FName} ${json.Name.LName} ${json.Address.City}`);
    }
    expect(names.size).toBeGreaterThan(15);
  });
});

describe('each status code of the Errors table, by its documented means', () => {
  it('204: no match for the reserved inputs, with an empty body', async () => {
    const reserved = RESERVED.find((r) => r.outcome === 'no-match');
    const phone = await post(phoneLookup, { Phone: reserved?.phone });
    expect(phone.status).toBe(204);
    expect(phone.text).toBe('');
    expect((await post(byId('email-verify'), { Email: reserved?.email })).status).toBe(204);
    expect(
      (await post(byId('tcpa-verify'), { phone: '5550102030', last_name: reserved?.lastName })).status,
    ).toBe(204);
  });

  it('400: a missing required parameter, a broken rule or bound, a non-JSON body', async () => {
    expect((await post(phoneLookup, {})).status).toBe(400);
    expect((await post(phoneLookup, { Phone: '555010203' })).json.error).toMatch(/Phone must be 10 digits/);
    expect((await post(phoneLookup, { Phone: '(555) 010-2030' })).status).toBe(400);
    expect((await post(phoneLookup, { Phone: 5550102030 })).status).toBe(400);
    expect((await post(byId('auto-append'), { FullName: 'Jane Doe', Zip: '02134' })).status).toBe(400);
    expect((await post(byId('tcpa-verify'), { Phone: '5550102030', last_name: 'Doe' })).json.error).toMatch(
      /did you mean phone/,
    );
    expect((await post(phoneLookup, 'not json')).status).toBe(400);
  });

  it('401: a missing or unknown key', async () => {
    const missing = await fetch(server.url + phoneLookup.path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"Phone":"5550102030"}',
    });
    expect(missing.status).toBe(401);
    expect((await post(phoneLookup, { Phone: '5550102030' }, { 'x-api-key': 'wrong-key' })).status).toBe(401);
  });

  it('429: once the allowance is used up, with Retry-After, until the window resets', async () => {
    server.sandbox.configure({ allowance: 2, allowanceWindowMs: 60_000 });
    expect((await post(phoneLookup, { Phone: '5550102030' })).status).toBe(200);
    expect((await post(phoneLookup, { Phone: '5550102031' })).status).toBe(200);
    const limited = await post(phoneLookup, { Phone: '5550102032' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(server.sandbox.transactions()).toBe(2);
    const reserved = RESERVED.find((r) => r.outcome === 'allowance');
    server.sandbox.configure({ allowance: null as unknown as number });
    const always = await post(phoneLookup, { Phone: reserved?.phone });
    expect(always.status).toBe(429);
    expect(always.headers.get('retry-after')).toBe('1');
  });

  it('440: too many results for the reserved inputs', async () => {
    const reserved = RESERVED.find((r) => r.outcome === 'too-many');
    expect((await post(phoneLookup, { Phone: reserved?.phone })).status).toBe(440);
    expect((await post(byId('email-lookup'), { Email: reserved?.email })).status).toBe(440);
  });

  it('500: the reserved inputs, and an injected fault rate', async () => {
    const reserved = RESERVED.find((r) => r.outcome === 'fault');
    expect((await post(phoneLookup, { Phone: reserved?.phone })).status).toBe(500);
    server.sandbox.configure({ faultRate: 1 });
    expect((await post(phoneLookup, { Phone: '5550102030' })).status).toBe(500);
    server.sandbox.configure({ faultRate: 0.5 });
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        post(phoneLookup, { Phone: `55501030${String(i).padStart(2, '0')}` }),
      ),
    );
    const faults = statuses.filter((s) => s.status === 500).length;
    expect(faults).toBeGreaterThan(5);
    expect(faults).toBeLessThan(35);
  });

  it('a GET, a non-JSON Content-Type and an unknown path get a clear 4xx', async () => {
    const get = await fetch(server.url + phoneLookup.path, { headers: { 'x-api-key': DEMO_KEY } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const form = await post(phoneLookup, 'Phone=5550102030', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
    expect(form.json.error).toMatch(/application\/json/);
    const unknown = await fetch(`${server.url}/v2//append/demographic`, { method: 'POST' });
    expect(unknown.status).toBe(404);
  });
});

describe('transactions', () => {
  it('200, 204 and 440 count; 400, 401, 429 and 500 do not; the admin path reports them', async () => {
    const reserved = (outcome: string) => RESERVED.find((r) => r.outcome === outcome)?.phone;
    await post(phoneLookup, { Phone: '5550102030' });
    await post(phoneLookup, { Phone: reserved('no-match') });
    await post(phoneLookup, { Phone: reserved('too-many') });
    await post(phoneLookup, { Phone: reserved('fault') });
    await post(phoneLookup, { Phone: reserved('allowance') });
    await post(phoneLookup, {});
    await post(phoneLookup, { Phone: '5550102030' }, { 'x-api-key': 'wrong' });
    expect(server.sandbox.transactions()).toBe(3);
    expect(server.sandbox.transactions(DEMO_KEY)).toBe(3);
    const stats = await (
      await fetch(`${server.url}/__sandbox/stats`, { headers: { [ADMIN_HEADER]: server.adminToken } })
    ).json();
    expect(stats).toMatchObject({ transactions: 3, requests: 7 });
    expect(JSON.stringify(stats)).not.toContain(DEMO_KEY);
    await fetch(`${server.url}/__sandbox/reset`, {
      method: 'POST',
      headers: { [ADMIN_HEADER]: server.adminToken, 'content-type': 'application/json' },
    });
    expect(server.sandbox.transactions()).toBe(0);
  });

  it('latency is added by the server, and the slow input is 2 s late', async () => {
    await fetch(`${server.url}/__sandbox/configure`, {
      method: 'POST',
      headers: { [ADMIN_HEADER]: server.adminToken, 'content-type': 'application/json' },
      body: JSON.stringify({ latencyMs: 150 }),
    });
    let started = performance.now();
    expect((await post(phoneLookup, { Phone: '5550102030' })).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    server.sandbox.configure({ latencyMs: 0 });
    started = performance.now();
    const slow = RESERVED.find((r) => r.outcome === 'slow');
    expect((await post(phoneLookup, { Phone: slow?.phone })).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1900);
  });

  it('the formula input gives names that a spreadsheet would read as formulas', async () => {
    const formula = RESERVED.find((r) => r.outcome === 'formula');
    const { json } = await post(phoneLookup, { Phone: formula?.phone });
    expect(json.Name.FName).toMatch(/^[=+\-@]/);
  });
});

describe('HTTPS', () => {
  it('serves HTTPS with a generated self-signed certificate', async () => {
    const secure = await startSandboxServer({ https: true });
    try {
      expect(secure.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpsRequest(
          `${secure.url}/v3/lookup/phone`,
          {
            method: 'POST',
            ca: secure.certificate,
            headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{"Phone":"5550102030"}');
      });
      expect(status).toBe(200);
    } finally {
      await secure.close();
    }
  }, 30_000);
});
