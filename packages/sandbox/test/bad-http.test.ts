// Bad HTTP is answered as HTTP (431, 400, 413, then the connection closed), and the admin paths
// take a credential and JSON, answer at once and are not counted. Raw bytes go through net.connect,
// since no HTTP client sends such requests.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_HEADER, DEMO_KEY, type SandboxServer, startSandboxServer } from '../src/index.js';

let server: SandboxServer;
let port: number;
beforeAll(async () => {
  server = await startSandboxServer({ port: 0 });
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());
beforeEach(() => {
  server.sandbox.reset();
  server.sandbox.configure({ latencyMs: 0, rate: Number.POSITIVE_INFINITY });
});

const PATH = '/v3/lookup/phone';

interface RawAnswer {
  /** The status code of the first answer, undefined when none came before the connection closed. */
  status: number | undefined;
  head: string;
  body: string;
  ms: number;
}

/** Sends raw bytes, then reads until the server closes the connection (or 3 s pass). */
function exchange(...parts: (string | Buffer)[]): Promise<RawAnswer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    const timer = setTimeout(() => socket.destroy(), 3000);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1];
      resolve({ status: status ? Number(status) : undefined, head, body, ms: performance.now() - started });
    });
    for (const part of parts) socket.write(part);
  });
}

const goodHeaders = `Host: 127.0.0.1\r\nx-api-key: ${DEMO_KEY}\r\ncontent-type: application/json\r\n`;

/** The sandbox still answers a good request (the bad one broke only its own connection). */
async function stillServes() {
  const answer = await fetch(server.url + PATH, {
    method: 'POST',
    headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ Phone: '5550102030' }),
  });
  expect(answer.status).toBe(200);
}

describe('bad HTTP is answered as HTTP, then the connection is closed', () => {
  it('a 40 KB header: 431', async () => {
    const answer = await exchange(
      `POST ${PATH} HTTP/1.1\r\n${goodHeaders}x-big: ${'x'.repeat(40_000)}\r\n\r\n`,
    );
    expect(answer.status).toBe(431);
    expect(answer.head).toContain('Request Header Fields Too Large');
    expect(answer.head.toLowerCase()).toContain('connection: close');
    await stillServes();
  });

  it('a chunk size that is not hexadecimal: 400', async () => {
    const answer = await exchange(
      `POST ${PATH} HTTP/1.1\r\n${goodHeaders}transfer-encoding: chunked\r\n\r\n`,
      'zz\r\n{"Phone":"5550102030"}\r\n0\r\n\r\n',
    );
    expect(answer.status).toBe(400);
    expect(answer.head).toContain('Bad Request');
    await stillServes();
  });

  it('Content-Length and Transfer-Encoding both: 400', async () => {
    const body = '{"Phone":"5550102030"}';
    const answer = await exchange(
      `POST ${PATH} HTTP/1.1\r\n${goodHeaders}content-length: ${body.length}\r\ntransfer-encoding: chunked\r\n\r\n`,
      `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expect(answer.status).toBe(400);
    await stillServes();
  });

  it('a garbage request line: 400', async () => {
    const answer = await exchange('\u0001\u0002 this is not HTTP at all\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(answer.head.toLowerCase()).toContain('content-length: 0');
    await stillServes();
  });

  it('a body over 1 MiB: 413, at once when Content-Length says so, else when the limit is passed', async () => {
    // Only the head: the sandbox need not wait for 2 MB to know it will not take them.
    const declared = await exchange(`POST ${PATH} HTTP/1.1\r\n${goodHeaders}content-length: 2000000\r\n\r\n`);
    expect(declared.status).toBe(413);
    expect(declared.ms).toBeLessThan(2000);
    expect(JSON.parse(declared.body)).toMatchObject({ status: 413 });
    const big = Buffer.alloc(2_000_000, 'a');
    const chunked = await exchange(
      `POST ${PATH} HTTP/1.1\r\n${goodHeaders}transfer-encoding: chunked\r\n\r\n${big.length.toString(16)}\r\n`,
      big,
      '\r\n0\r\n\r\n',
    );
    expect(chunked.status).toBe(413);
    const fetched = await fetch(server.url + PATH, {
      method: 'POST',
      headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json' },
      body: 'a'.repeat(2_000_000),
    });
    expect(fetched.status).toBe(413);
    await stillServes();
  });
});

const configure = (headers: Record<string, string>, body: unknown = { latencyMs: 1234 }) =>
  fetch(`${server.url}/__sandbox/configure`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('the admin paths take a credential and JSON', () => {
  it('configure without a credential, or with a wrong one, is refused and changes nothing', async () => {
    const none = await configure({ 'content-type': 'application/json' });
    expect(none.status).toBe(401);
    expect((await none.json()).error).toContain(ADMIN_HEADER);
    // A simple form post (no custom header, a simple content type), as any web page can send.
    const form = await configure({ 'content-type': 'application/x-www-form-urlencoded' }, 'latencyMs=1234');
    expect(form.status).toBe(401);
    const wrongToken = await configure({ [ADMIN_HEADER]: 'guess', 'content-type': 'application/json' });
    expect(wrongToken.status).toBe(403);
    const wrongKey = await configure({ 'x-api-key': 'wrong', 'content-type': 'application/json' });
    expect(wrongKey.status).toBe(403);
    for (const action of ['reset', 'stats']) {
      const refused = await fetch(`${server.url}/__sandbox/${action}`, {
        method: action === 'stats' ? 'GET' : 'POST',
      });
      expect(refused.status, action).toBe(401);
    }
    expect(server.sandbox.knobs().latencyMs).toBe(0);
  });

  it('configure with text/plain: 415, and nothing changes', async () => {
    const plain = await configure({ [ADMIN_HEADER]: server.adminToken, 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
    expect((await plain.json()).error).toContain('application/json');
    const reset = await fetch(`${server.url}/__sandbox/reset`, {
      method: 'POST',
      headers: { 'x-api-key': DEMO_KEY, 'content-type': 'text/plain' },
    });
    expect(reset.status).toBe(415);
    expect(server.sandbox.knobs().latencyMs).toBe(0);
  });

  it('with the token the command prints (or a key) and JSON, configure works', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--port', '0'], {
      cwd: new URL('..', import.meta.url),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let printed = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          printed += String(d);
          if (printed.includes('Ctrl-C')) resolve();
        });
        child.on('exit', () => reject(new Error(`exited: ${printed}`)));
      });
      const url = /listening on (\S+)/.exec(printed)?.[1] ?? '';
      const token = /Admin token: ([0-9a-f]{32})\b/.exec(printed)?.[1] ?? '';
      expect(token).not.toBe('');
      const post = (headers: Record<string, string>) =>
        fetch(`${url}/__sandbox/configure`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ latencyMs: 7 }),
        });
      const withToken = await post({ [ADMIN_HEADER]: token });
      expect(withToken.status).toBe(200);
      expect(await withToken.json()).toMatchObject({ latencyMs: 7 });
      expect((await post({ [ADMIN_HEADER]: `${token}0` })).status).toBe(403);
      expect((await post({ 'x-api-key': DEMO_KEY })).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    const inProcess = await configure({
      [ADMIN_HEADER]: server.adminToken,
      'content-type': 'application/json',
    });
    expect(inProcess.status).toBe(200);
    expect(server.sandbox.knobs().latencyMs).toBe(1234);
  });

  it('admin answers are not delayed by the latency, nor counted in the stats', async () => {
    server.sandbox.configure({ rate: 1, burst: 1 });
    const admin = { [ADMIN_HEADER]: server.adminToken, 'content-type': 'application/json' };
    const slow = await configure(admin, { latencyMs: 2000 });
    expect(slow.status).toBe(200);
    let started = performance.now();
    const stats = await fetch(`${server.url}/__sandbox/stats`, { headers: { 'x-api-key': DEMO_KEY } });
    expect(stats.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(500);
    started = performance.now();
    await configure(admin, { latencyMs: 2000 });
    await fetch(`${server.url}/__sandbox/reset`, { method: 'POST', headers: admin });
    await configure({}); // refused: 401
    await configure({ ...admin, 'content-type': 'text/plain' }); // refused: 415
    expect(performance.now() - started).toBeLessThan(500);
    // None of these took a token of the key's bucket (rate 1, burst 1), nor counts as a request.
    const counted = await (await fetch(`${server.url}/__sandbox/stats`, { headers: admin })).json();
    expect(counted).toMatchObject({ requests: 0, byStatus: {}, throttled: 0, transactions: 0 });
    server.sandbox.configure({ latencyMs: 0 });
    await stillServes();
    expect(server.sandbox.stats()).toMatchObject({ requests: 1, byStatus: { '200': 1 } });
  });
});
