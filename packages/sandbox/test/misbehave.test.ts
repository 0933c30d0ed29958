// The misbehave modes over real HTTP on 127.0.0.1, read by core's own fetch transport and reader,
// and the server surviving clients that drop mid-request.
import { connect } from 'node:net';
import { type HttpResponse, OPERATIONS, type Operation, readResponse } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DEMO_KEY,
  ECHO_KEY_HEADER,
  HUGE_BODY_BYTES,
  MISBEHAVE_HEADER,
  MISBEHAVE_MODES,
  parseMisbehave,
  type SandboxServer,
  startSandboxServer,
} from '../src/index.js';
import { runSandboxCommand } from './run-command.js';

const byId = (id: string) => OPERATIONS.find((op) => op.id === id) as Operation;
const phoneLookup = byId('phone-lookup');
const phoneAppend = byId('phone-append');

let server: SandboxServer;
beforeAll(async () => {
  server = await startSandboxServer({ port: 0 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.sandbox.reset();
  server.sandbox.configure({ latencyMs: 0, misbehave: [] });
});

/** One request through core's fetch transport, as every Node client sends it. */
function send(
  op: Operation,
  mode: string | undefined,
  options: { timeoutMs?: number } = {},
): Promise<HttpResponse> {
  const headers: Record<string, string> = { 'x-api-key': DEMO_KEY, 'Content-Type': 'application/json' };
  if (mode) headers[MISBEHAVE_HEADER] = mode;
  return createFetchTransport({ timeoutMs: options.timeoutMs ?? 5000 })({
    method: 'POST',
    url: server.url + op.path,
    headers,
    body: JSON.stringify(op.example),
  });
}

describe('modes in front of the service', () => {
  it('redirect: 307 to the same path on the decoy, which nothing reaches unless a client follows', async () => {
    const response = await send(phoneLookup, 'redirect');
    expect(response.status).toBe(307);
    expect(response.headers.location).toBe(`${server.decoy.url}${phoneLookup.path}`);
    expect(server.decoy.hits()).toBe(0);
    expect(readResponse(phoneLookup, response)).toMatchObject({ kind: 'error', error: { code: 'redirect' } });
    // A client that follows redirects (fetch's default) sends its key to the decoy: it counts that.
    await fetch(server.url + phoneLookup.path, {
      method: 'POST',
      headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json', [MISBEHAVE_HEADER]: 'redirect' },
      body: JSON.stringify(phoneLookup.example),
    });
    expect(server.decoy.hits()).toBe(1);
    expect(server.sandbox.transactions()).toBe(0);
  });

  it('redirect comes before the key check, as a proxy in front would', async () => {
    const response = await createFetchTransport()({
      method: 'POST',
      url: server.url + phoneLookup.path,
      headers: { 'x-api-key': 'not-a-key', [MISBEHAVE_HEADER]: 'redirect' },
      body: '{}',
    });
    expect(response.status).toBe(307);
  });

  it('retry-after-huge: 429 with Retry-After 99999, not counted', async () => {
    const response = await send(phoneLookup, 'retry-after-huge');
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('99999');
    expect(server.sandbox.transactions()).toBe(0);
  });

  it('retry-after-date: 429 with Retry-After as an HTTP date about 2 s ahead', async () => {
    const before = Date.now();
    const response = await send(phoneLookup, 'retry-after-date');
    expect(response.status).toBe(429);
    const outcome = readResponse(phoneLookup, response, before);
    if (outcome.kind !== 'error') throw new Error('expected an error');
    expect(outcome.error.retryAfterMs).toBeGreaterThanOrEqual(2000);
    expect(outcome.error.retryAfterMs).toBeLessThanOrEqual(3000);
    expect(server.sandbox.transactions()).toBe(0);
  });
});

describe('modes in the answer: each a 200, each counted', () => {
  it('other-case: documented names in another case (phoneType, name.fName)', async () => {
    const response = await send(phoneAppend, 'other-case');
    expect(response.status).toBe(200);
    const body = JSON.parse(response.body);
    expect(Object.keys(body)).toContain('phoneType');
    expect(Object.keys(body)).not.toContain('PhoneType');
    const lookup = JSON.parse((await send(phoneLookup, 'other-case')).body);
    expect(lookup.name).toHaveProperty('fName');
    const outcome = readResponse(phoneAppend, response);
    if (outcome.kind !== 'record') throw new Error(`expected a record, got ${outcome.kind}`);
    expect(outcome.record.PhoneType).toBe(body.phoneType);
    expect(outcome.mismatches.every((m) => m.problem === 'case')).toBe(true);
    expect(server.sandbox.transactions()).toBe(2);
  });

  it('extra-fields: fields the description does not list', async () => {
    const response = await send(phoneLookup, 'extra-fields');
    const outcome = readResponse(phoneLookup, response);
    if (outcome.kind !== 'record') throw new Error(`expected a record, got ${outcome.kind}`);
    expect(outcome.extra).toMatchObject({
      DID: '5550102030',
      telcoName: 'Sandbox Wireless',
      LineType: 'W',
      'Meta.Source': 'sandbox',
      'Meta.Version': 3,
      'Name.Nick': 'JJ',
    });
    expect(server.sandbox.transactions()).toBe(1);
  });

  it('wrong-types: Deliverable "Y", Name as one string, a ZIP as a number', async () => {
    const response = await send(phoneLookup, 'wrong-types');
    const body = JSON.parse(response.body);
    expect(typeof body.Name).toBe('string');
    expect(['Y', 'N']).toContain(body.Address.Deliverable);
    expect(typeof body.Address.Zip).toBe('number');
    const outcome = readResponse(phoneLookup, response);
    if (outcome.kind !== 'record') throw new Error(`expected a record, got ${outcome.kind}`);
    expect(outcome.extra.Name).toBe(body.Name);
    expect(outcome.mismatches.map((m) => m.problem)).toEqual(expect.arrayContaining(['not-object', 'type']));
    // Operations with neither booleans, numbers nor digits still get a value of another type.
    const verify = JSON.parse((await send(byId('email-verify'), 'wrong-types')).body);
    expect(Array.isArray(verify.Email)).toBe(true);
    expect(server.sandbox.transactions()).toBe(2);
  });

  it('html-200: a 200 HTML page, read as paid and unreadable', async () => {
    const response = await send(phoneLookup, 'html-200');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(readResponse(phoneLookup, response)).toMatchObject({
      kind: 'unreadable',
      reason: 'the body is not JSON',
    });
    expect(server.sandbox.transactions()).toBe(1);
  });

  it('cut-body: the body stops half-way and the connection is destroyed', async () => {
    const response = await send(phoneLookup, 'cut-body');
    expect(response).toMatchObject({ status: 200, bodyProblem: 'cut' });
    expect(response.body.length).toBeGreaterThan(10);
    expect(readResponse(phoneLookup, response)).toMatchObject({ kind: 'unreadable' });
    expect(server.sandbox.transactions()).toBe(1);
  });

  it('huge-body: a 2 MB body, beyond the 1 MB cap', async () => {
    const whole = await fetch(server.url + phoneLookup.path, {
      method: 'POST',
      headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json', [MISBEHAVE_HEADER]: 'huge-body' },
      body: JSON.stringify(phoneLookup.example),
    });
    const text = await whole.text();
    expect(text.length).toBeGreaterThanOrEqual(HUGE_BODY_BYTES);
    expect(JSON.parse(text)).toHaveProperty('Name');
    const response = await send(phoneLookup, 'huge-body');
    expect(response.bodyProblem).toBe('too-big');
    expect(readResponse(phoneLookup, response)).toMatchObject({ kind: 'unreadable' });
    expect(server.sandbox.transactions()).toBe(2);
  });

  it('trickle: one byte every 2 s, so a whole-exchange deadline gives up with what arrived', async () => {
    const started = Date.now();
    const response = await send(phoneLookup, 'trickle', { timeoutMs: 2500 });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(2400);
    expect(elapsed).toBeLessThan(4000);
    expect(response).toMatchObject({ status: 200, bodyProblem: 'cut', body: '{"' });
    expect(server.sandbox.transactions()).toBe(1);
  });

  it('modes combine: other-case and extra-fields together', async () => {
    const outcome = readResponse(phoneAppend, await send(phoneAppend, 'other-case, extra-fields'));
    if (outcome.kind !== 'record') throw new Error(`expected a record, got ${outcome.kind}`);
    expect(outcome.mismatches.some((m) => m.problem === 'case')).toBe(true);
    expect(outcome.record.TelcoName).not.toBe('Sandbox Wireless');
    expect(Object.keys(outcome.extra)).toEqual(expect.arrayContaining(['DID', 'LineType', 'Meta.Source']));
  });

  it('leaves answers that are not 200 as they are', async () => {
    const response = await createFetchTransport()({
      method: 'POST',
      url: server.url + phoneLookup.path,
      headers: { 'x-api-key': DEMO_KEY, 'Content-Type': 'application/json', [MISBEHAVE_HEADER]: 'html-200' },
      body: '{}',
    });
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/json');
  });
});

describe('around every answer: echo-key, a gateway that dumps the key it was sent', () => {
  /** One request with `key` (any string, known or not) and `body`, asking for `modes`. */
  const sendWith = (key: string, modes: string, body = JSON.stringify(phoneLookup.example)) =>
    createFetchTransport()({
      method: 'POST',
      url: server.url + phoneLookup.path,
      headers: { 'x-api-key': key, 'Content-Type': 'application/json', [MISBEHAVE_HEADER]: modes },
      body,
    });

  it('a 200 record carries the key in a header and an unknown field Echo; counted as the 200 it is', async () => {
    const response = await sendWith(DEMO_KEY, 'echo-key');
    expect(response.status).toBe(200);
    expect(response.headers[ECHO_KEY_HEADER]).toBe(DEMO_KEY);
    expect(JSON.parse(response.body).Echo).toEqual({ 'x-api-key': DEMO_KEY });
    const outcome = readResponse(phoneLookup, response);
    if (outcome.kind !== 'record') throw new Error(`expected a record, got ${outcome.kind}`);
    expect(outcome.extra['Echo.x-api-key']).toBe(DEMO_KEY);
    expect(server.sandbox.transactions()).toBe(1);
  });

  it('an error carries it too, whatever key was sent: a 401 for an unknown key, a 400 for a bad body', async () => {
    const refused = await sendWith('not-a-sandbox-key-123', 'echo-key');
    expect(refused.status).toBe(401);
    expect(refused.headers[ECHO_KEY_HEADER]).toBe('not-a-sandbox-key-123');
    expect(JSON.parse(refused.body)).toMatchObject({
      status: 401,
      Echo: { 'x-api-key': 'not-a-sandbox-key-123' },
    });
    const bad = await sendWith(DEMO_KEY, 'echo-key', '{}');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ status: 400, Echo: { 'x-api-key': DEMO_KEY } });
    expect(server.sandbox.transactions()).toBe(0);
  });

  it('a body that is not JSON keeps only the header; without the mode, no echo at all', async () => {
    const html = await sendWith(DEMO_KEY, 'html-200,echo-key');
    expect(html.headers[ECHO_KEY_HEADER]).toBe(DEMO_KEY);
    expect(html.body).not.toContain(DEMO_KEY);
    const plain = await sendWith(DEMO_KEY, 'other-case');
    expect(plain.headers[ECHO_KEY_HEADER]).toBeUndefined();
    expect(plain.body).not.toContain(DEMO_KEY);
  });

  it('startSandboxServer({ misbehave: ["echo-key"] }) echoes on every request', async () => {
    server.sandbox.configure({ misbehave: ['echo-key'] });
    const response = await send(phoneLookup, undefined);
    expect(response.headers[ECHO_KEY_HEADER]).toBe(DEMO_KEY);
  });
});

describe('choosing modes', () => {
  it('an unknown mode in the header is a 400 naming the modes, and costs nothing', async () => {
    const response = await send(phoneLookup, 'explode');
    expect(response.status).toBe(400);
    expect(response.body).toContain('Unknown misbehave mode \\"explode\\"');
    expect(response.body).toContain(MISBEHAVE_MODES.join(', '));
    expect(server.sandbox.transactions()).toBe(0);
  });

  it('startSandboxServer({ misbehave }) misbehaves on every request; configure changes it', async () => {
    const other = await startSandboxServer({ misbehave: ['html-200'] });
    try {
      const post = () =>
        fetch(other.url + phoneLookup.path, {
          method: 'POST',
          headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json' },
          body: JSON.stringify(phoneLookup.example),
        });
      expect((await post()).headers.get('content-type')).toMatch(/text\/html/);
      const configured = await fetch(`${other.url}/__sandbox/configure`, {
        method: 'POST',
        headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ misbehave: 'retry-after-huge' }),
      });
      expect(await configured.json()).toMatchObject({ misbehave: ['retry-after-huge'] });
      expect((await post()).status).toBe(429);
      const refused = await fetch(`${other.url}/__sandbox/configure`, {
        method: 'POST',
        headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ misbehave: 'nope' }),
      });
      expect(refused.status).toBe(400);
      expect(other.sandbox.transactions()).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('parses lists, ignoring case and spaces, and names unknown modes', () => {
    expect(parseMisbehave(' Redirect , trickle ')).toEqual({ ok: true, modes: ['redirect', 'trickle'] });
    expect(parseMisbehave(undefined)).toEqual({ ok: true, modes: [] });
    expect(parseMisbehave('trickle,slow')).toMatchObject({
      ok: false,
      message: expect.stringContaining('"slow"'),
    });
  });

  it('the command takes --misbehave and SANDBOX_MISBEHAVE, and refuses an unknown mode', async () => {
    const run = runSandboxCommand;
    const bad = await run(['--misbehave', 'redirect,bogus'], {});
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('Unknown misbehave mode "bogus"');
    const good = await run([], { SANDBOX_MISBEHAVE: 'cut-body,trickle' });
    expect(good.out).toContain('Misbehaving on every request: cut-body, trickle');
  }, 30_000);
});

describe('clients that drop mid-request', () => {
  const host = () => new URL(server.url);

  it('survives a client that sends half a request and goes away, then answers the next one', async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(Number(host().port), host().hostname, () => {
        socket.write(
          `POST ${phoneLookup.path} HTTP/1.1\r\nHost: x\r\nx-api-key: ${DEMO_KEY}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"Phone":"55`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    await new Promise<void>((resolve) => {
      // Half a request line, then gone.
      const socket = connect(Number(host().port), host().hostname, () => {
        socket.write('POST /v3/lookup/ph');
        socket.destroy();
        resolve();
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await send(phoneLookup, undefined)).status).toBe(200);
  });

  it('survives a client that leaves while a delayed answer is pending, and one that leaves a trickle', async () => {
    server.sandbox.configure({ latencyMs: 300 });
    const controller = new AbortController();
    const pending = fetch(server.url + phoneLookup.path, {
      method: 'POST',
      headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(phoneLookup.example),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow();
    server.sandbox.configure({ latencyMs: 0 });
    await send(phoneLookup, 'trickle', { timeoutMs: 200 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await send(phoneLookup, undefined)).status).toBe(200);
  });
});
