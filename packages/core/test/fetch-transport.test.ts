// Core's fetch transport over real HTTP on 127.0.0.1: redirects are returned, never followed; one
// deadline covers headers and body; bodies that break off or pass the cap come back marked, not
// thrown (a 200 is paid once its headers are in).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createFetchTransport } from '../src/fetch-transport.js';
import { type HttpRequest, readResponse } from '../src/index.js';
import { op } from './api.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A server whose behaviour each test sets; it records every request that reaches it. */
async function listen(): Promise<{
  server: Server;
  url: string;
  hits: string[];
  handle: (h: Handler) => void;
}> {
  const hits: string[] = [];
  let handler: Handler = (_req, res) => res.end();
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url} key=${req.headers['x-api-key'] ?? ''}`);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    hits,
    handle: (h) => {
      handler = h;
    },
  };
}

let main: Awaited<ReturnType<typeof listen>>;
let other: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  main = await listen();
  other = await listen();
});
afterAll(async () => {
  for (const s of [main, other]) {
    s.server.closeAllConnections();
    await new Promise((resolve) => s.server.close(resolve));
  }
});

const post = (url: string): HttpRequest => ({
  method: 'POST',
  url: `${url}/v2/verify/email`,
  headers: { 'x-api-key': 'test-key-123456', 'Content-Type': 'application/json' },
  body: '{"Email":"a@b.co"}',
});

describe('createFetchTransport', () => {
  it('returns a 3xx as it is: the Location is never requested, the key goes nowhere else', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      other.hits.length = 0;
      main.handle((_req, res) => {
        res.writeHead(status, { location: `${other.url}/stolen` }).end();
      });
      const response = await createFetchTransport({ timeoutMs: 2000 })(post(main.url));
      expect(response.status).toBe(status);
      expect(response.headers.location).toBe(`${other.url}/stolen`);
      expect(other.hits).toEqual([]);
      expect(readResponse(op('email-verify'), response)).toMatchObject({
        kind: 'error',
        error: { code: 'redirect', status },
      });
    }
  });

  it('reads a whole answer, headers in lower case', async () => {
    main.handle((_req, res) => {
      res
        .writeHead(200, { 'Content-Type': 'application/json', 'X-Trace': 'abc' })
        .end('{"Email":"a@b.co","Result":"ok"}');
    });
    const response = await createFetchTransport({ timeoutMs: 2000 })(post(main.url));
    expect(response).toMatchObject({ status: 200, body: '{"Email":"a@b.co","Result":"ok"}' });
    expect(response.headers['x-trace']).toBe('abc');
    expect(response).not.toHaveProperty('bodyProblem');
  });

  it('gives up on a trickling body at the deadline, keeping what arrived as a cut body', async () => {
    let timer: NodeJS.Timeout | undefined;
    main.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{');
      // One byte every 100 ms: an idle timer of 300 ms would never fire.
      timer = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    const response = await createFetchTransport({ timeoutMs: 600 })(post(main.url));
    const elapsed = Date.now() - started;
    clearInterval(timer);
    expect(elapsed).toBeGreaterThanOrEqual(550);
    expect(elapsed).toBeLessThan(1500);
    expect(response.status).toBe(200);
    expect(response.bodyProblem).toBe('cut');
    expect(response.body.startsWith('{')).toBe(true);
    expect(readResponse(op('email-verify'), response)).toMatchObject({ kind: 'unreadable', status: 200 });
  });

  it('throws when no headers arrive before the deadline, naming the deadline', async () => {
    main.handle(() => {
      // Never answers.
    });
    await expect(createFetchTransport({ timeoutMs: 300 })(post(main.url))).rejects.toThrow(
      /no complete answer within 300 ms/,
    );
  });

  it('marks a body that breaks off (connection destroyed half-way) as cut', async () => {
    main.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '200' });
      res.write('{"Email":"a@b.co","Res');
      setTimeout(() => res.destroy(), 20);
    });
    const response = await createFetchTransport({ timeoutMs: 2000 })(post(main.url));
    expect(response).toMatchObject({ status: 200, bodyProblem: 'cut', body: '{"Email":"a@b.co","Res' });
  });

  it('stops reading at the size cap and marks the body too big, keeping the first bytes', async () => {
    main.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(`{"Email":"${'x'.repeat(2_000_000)}"}`);
    });
    const response = await createFetchTransport({ timeoutMs: 5000 })(post(main.url));
    expect(response.bodyProblem).toBe('too-big');
    expect(response.body.length).toBe(1_048_576);
    const small = await createFetchTransport({ timeoutMs: 5000, maxBodyBytes: 1000 })(post(main.url));
    expect(small.bodyProblem).toBe('too-big');
    expect(small.body.length).toBe(1000);
  });

  it("stops at the caller's signal", async () => {
    main.handle(() => {
      // Never answers.
    });
    const controller = new AbortController();
    const pending = createFetchTransport({ signal: controller.signal })(post(main.url));
    setTimeout(() => controller.abort(new Error('stopped by the user')), 50);
    await expect(pending).rejects.toThrow(/stopped by the user/);
  });

  it('leaves no timer behind once an exchange is over: each deadline timer cleared', async () => {
    main.handle((_req, res) => {
      res.writeHead(400).end();
    });
    // Counted, not sampled: an unref'd timer that is never cleared no longer shows among the
    // process's active resources, yet it still fires (and aborts) a minute later.
    const DEADLINE = 60_123;
    const deadlines = new Set<unknown>();
    const cleared = new Set<unknown>();
    const set = vi.spyOn(globalThis, 'setTimeout');
    const clear = vi.spyOn(globalThis, 'clearTimeout');
    try {
      const transport = createFetchTransport({ timeoutMs: DEADLINE });
      for (let i = 0; i < 20; i++) await transport(post(main.url));
      set.mock.calls.forEach(([, ms], i) => {
        if (ms === DEADLINE) deadlines.add(set.mock.results[i]?.value);
      });
      for (const [handle] of clear.mock.calls) if (deadlines.has(handle)) cleared.add(handle);
    } finally {
      set.mockRestore();
      clear.mockRestore();
    }
    expect(deadlines.size).toBe(20);
    expect(cleared.size).toBe(20);
  });
});
