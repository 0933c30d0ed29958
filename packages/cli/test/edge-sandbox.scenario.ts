// Issue 27, item 6, as rows of the hostile report: the sandbox (every client's test double) given
// bad HTTP, and its admin path asked without a credential or as text/plain. No CLI run: the "exit"
// column is empty; "also" holds the status each request got. packages/sandbox/test/bad-http.test.ts
// asserts the same (and more) beside the server.
import { connect } from 'node:net';
import { ADMIN_HEADER } from '@enrich/sandbox';
import { startServer } from './helpers.js';
import { notARun, type Scenario } from './hostile-measure.js';

/** The status line's code of what the sandbox answered to these raw bytes, or "none". */
function statusFor(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 'none'));
  });
}

const request = (head: string, body = '') => `${head}\r\nHost: 127.0.0.1\r\n${body}`;

export const sandboxBadHttp: Scenario = {
  id: 'sandbox-bad-http',
  issue: 'the sandbox given a 40 KB header, bad chunked encoding, CL+TE, a garbage request line',
  async run() {
    const server = await startServer();
    try {
      const port = Number(new URL(server.url).port);
      const startedAt = Date.now();
      const post = 'POST /v3/lookup/phone HTTP/1.1';
      const more = {
        header40k: await statusFor(port, request(post, `x-big: ${'a'.repeat(40_000)}\r\n\r\n`)),
        badChunk: await statusFor(port, request(post, 'Transfer-Encoding: chunked\r\n\r\nzz\r\n')),
        clAndTe: await statusFor(
          port,
          request(post, 'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'),
        ),
        garbageLine: await statusFor(port, '\x01\x02 not http at all\r\n\r\n'),
      };
      return notARun(
        { requests: server.sandbox.requests(), counted: server.sandbox.transactions() },
        startedAt,
        more,
      );
    } finally {
      await server.close();
    }
  },
};

export const sandboxAdmin: Scenario = {
  id: 'sandbox-admin',
  issue: "the sandbox's /__sandbox/configure without a credential, as text/plain, and with its token",
  async run() {
    const server = await startServer();
    try {
      const configure = (headers: Record<string, string>) =>
        fetch(`${server.url}/__sandbox/configure`, { method: 'POST', headers, body: '{"latencyMs":2000}' });
      const startedAt = Date.now();
      const anyone = await configure({ 'content-type': 'application/json' });
      const textPlain = await configure({ [ADMIN_HEADER]: server.adminToken, 'content-type': 'text/plain' });
      const untouched = server.sandbox.knobs().latencyMs;
      const owner = await configure({
        [ADMIN_HEADER]: server.adminToken,
        'content-type': 'application/json',
      });
      const before = Date.now();
      await fetch(`${server.url}/__sandbox/stats`, { headers: { [ADMIN_HEADER]: server.adminToken } });
      const more = {
        noCredential: anyone.status,
        textPlain: textPlain.status,
        latencyAfterRefusals: untouched,
        withToken: owner.status,
        statsMsAt2000msLatency: Date.now() - before,
      };
      return notARun(
        { requests: server.sandbox.requests(), counted: server.sandbox.transactions() },
        startedAt,
        more,
      );
    } finally {
      await server.close();
    }
  },
};
