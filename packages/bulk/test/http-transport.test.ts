// The bulk transport keeps core's transport guarantees, over real HTTP to the misbehaving sandbox.
import { DEMO_KEY } from '@enrich/sandbox';
import { describe, expect, it } from 'vitest';
import { createHttpTransport } from '../src/index.js';
import { useSandboxServer } from './fixtures.js';

const at = useSandboxServer();

const lookup = (misbehave?: string) => ({
  method: 'POST' as const,
  url: `${at.server.url}/v3/lookup/phone`,
  headers: {
    'content-type': 'application/json',
    'x-api-key': DEMO_KEY,
    ...(misbehave ? { 'x-sandbox-misbehave': misbehave } : {}),
  },
  body: JSON.stringify({ Phone: '5551000001' }),
});

describe('createHttpTransport', () => {
  it('answers a plain request with status, lower-case headers and the body', async () => {
    const response = await createHttpTransport({ timeoutMs: 5000 })(lookup());
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/json/);
    expect(JSON.parse(response.body)).toHaveProperty('Name');
    expect(response.bodyProblem).toBeUndefined();
  });

  it('never follows a redirect: the 3xx comes back with its Location', async () => {
    const response = await createHttpTransport({ timeoutMs: 5000 })(lookup('redirect'));
    expect(response.status).toBeGreaterThanOrEqual(300);
    expect(response.status).toBeLessThan(400);
    expect(response.headers.location).toBeDefined();
  });

  it('a body that breaks off is a cut body (kept), not a thrown network error', async () => {
    const response = await createHttpTransport({ timeoutMs: 5000 })(lookup('cut-body'));
    expect(response.status).toBe(200);
    expect(response.bodyProblem).toBe('cut');
    expect(response.body.length).toBeGreaterThan(0);
  });

  it('a body over the cap stops at the cap', async () => {
    const response = await createHttpTransport({ timeoutMs: 5000, maxBodyBytes: 1000 })(lookup('huge-body'));
    expect(response.bodyProblem).toBe('too-big');
    expect(Buffer.byteLength(response.body)).toBeLessThanOrEqual(1000);
  });

  it('one deadline covers the body: a trickling body is cut at the deadline', async () => {
    const started = Date.now();
    const response = await createHttpTransport({ timeoutMs: 1500 })(lookup('trickle'));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(response.bodyProblem).toBe('cut');
  });

  it('nothing listening is a thrown network error; an aborted signal ends the exchange at once', async () => {
    const { server } = at;
    const transport = createHttpTransport({ timeoutMs: 2000 });
    await expect(transport({ ...lookup(), url: 'http://127.0.0.1:9/v3/lookup/phone' })).rejects.toThrow(
      /ECONNREFUSED/,
    );
    const controller = new AbortController();
    const pending = createHttpTransport({ timeoutMs: 10_000, signal: controller.signal })(lookup('trickle'));
    setTimeout(() => controller.abort(), 200);
    const response = await pending;
    expect(response.bodyProblem).toBe('cut');
    // Already aborted: nothing is sent, the call fails at once.
    const before = server.sandbox.stats().requests;
    await expect(createHttpTransport({ signal: AbortSignal.abort() })(lookup())).rejects.toThrow(/cancelled/);
    expect(server.sandbox.stats().requests).toBe(before);
  });
});
