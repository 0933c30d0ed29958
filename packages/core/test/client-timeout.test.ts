// The SDK's deadline over real HTTP on 127.0.0.1 (issue 27, item 2): a request sent whole whose
// deadline passed, or whose connection was lost while waiting, may have been paid: it is not sent
// again and its error says so. A connection reset before the request went out is still retried.
// And `timeoutMs` must be a deadline a timer can keep.
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, isRetryable, MAX_TIMEOUT_MS } from '../src/sdk.js';

const PHONE = { Phone: '5551234567' };
const fastRetry = { baseDelayMs: 10, maxDelayMs: 20 };

interface Service {
  readonly url: string;
  /** Requests (connections, for the TCP ones) received: what a service that bills on arrival bills. */
  billed: number;
  close(): Promise<void>;
}

const open: Service[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** Bills each request as it arrives and answers a record after `ms`. */
async function slowService(ms: number): Promise<Service> {
  const service: Service = { url: '', billed: 0, close: async () => undefined };
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      service.billed++;
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"Name":{"FName":"Ada"}}');
      }, ms).unref();
    });
    res.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  Object.assign(service, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
  open.push(service);
  return service;
}

/** A TCP service that does `onSocket` with each connection; `billed` counts the connections. */
async function tcpService(onSocket: (socket: Socket) => void): Promise<Service> {
  const sockets = new Set<Socket>();
  const service: Service = { url: '', billed: 0, close: async () => undefined };
  const server: Server = createTcpServer((socket) => {
    service.billed++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  Object.assign(service, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
  open.push(service);
  return service;
}

const clientOf = (url: string, extra: { timeoutMs?: number } = {}) =>
  createClient({ apiKey: 'test-key-123', baseUrl: url, baseUrlV3: url, retry: fastRetry, ...extra });

describe('a service slower than timeoutMs', () => {
  it('one request is sent and billed, not five; the error says it may have been paid and was not sent again', async () => {
    const service = await slowService(2000);
    const result = await clientOf(service.url, { timeoutMs: 500 }).phoneLookup(PHONE);
    // Main retried the timeout as a network error: five requests, five answers billed.
    expect(service.billed).toBe(1);
    expect(result.kind).toBe('error');
    if (result.kind !== 'error') return;
    expect(result.error.code).toBe('unanswered');
    expect(result.error.message).toMatch(/^May have been paid: the request was sent to 127\.0\.0\.1:\d+/);
    expect(result.error.message).toContain('no complete answer within 500 ms');
    expect(result.error.message).toContain('it was not sent again');
    expect(isRetryable(result.error)).toBe(false);
    // Nothing more arrives later: no retry was pending.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(service.billed).toBe(1);
  }, 10_000);
});

describe('a connection lost before or after the request was sent', () => {
  it('reset while connecting: retried, each attempt a new connection; reset after the request was read: once, may have been paid', async () => {
    const early = await tcpService((socket) => socket.resetAndDestroy());
    const late = await tcpService((socket) => socket.once('data', () => socket.resetAndDestroy()));
    const client = (url: string) =>
      createClient({
        apiKey: 'test-key-123',
        baseUrl: url,
        baseUrlV3: url,
        timeoutMs: 5000,
        retry: { ...fastRetry, maxAttempts: 3 },
      });

    const before = await client(early.url).phoneLookup(PHONE);
    expect(early.billed).toBe(3);
    expect(before).toMatchObject({ kind: 'error', error: { code: 'network' } });

    const after = await client(late.url).phoneLookup(PHONE);
    // Main retried this one too: three requests that each reached the service.
    expect(late.billed).toBe(1);
    expect(after).toMatchObject({ kind: 'error', error: { code: 'unanswered' } });
    if (after.kind === 'error') {
      expect(after.error.message).toMatch(
        /May have been paid: .*the connection was lost while waiting for the answer/,
      );
    }
  }, 10_000);
});

describe('timeoutMs', () => {
  const make = (timeoutMs: number) => () => clientOf('http://127.0.0.1:9', { timeoutMs });

  it('must be a finite number of milliseconds greater than 0 and at most 2^31 - 1: 2^31 - 1 and 1000 pass, and keep their deadline', async () => {
    // Node runs a timer longer than 2^31 - 1 ms after 1 ms (every call aborted and retried); 0, -1
    // and NaN gave no deadline at all.
    for (const bad of [Number.POSITIVE_INFINITY, 2 ** 31, 0, -1, Number.NaN]) {
      expect(make(bad), String(bad)).toThrow(TypeError);
      expect(make(bad), String(bad)).toThrow(
        `createClient: timeoutMs must be a finite number of milliseconds greater than 0 and at most 2147483647 (about 24.8 days); got ${bad}`,
      );
    }
    expect(() => clientOf('http://127.0.0.1:9', { timeoutMs: '500' as unknown as number })).toThrow(
      /timeoutMs must be .*; got "500"/,
    );
    expect(MAX_TIMEOUT_MS).toBe(2 ** 31 - 1);
    expect(make(1000)).not.toThrow();
    expect(() => clientOf('http://127.0.0.1:9')).not.toThrow();
    // The longest deadline a timer keeps does not fire at once: the call gets its answer.
    const service = await slowService(200);
    const result = await clientOf(service.url, { timeoutMs: 2 ** 31 - 1 }).phoneLookup(PHONE);
    expect(result.kind).toBe('record');
    expect(service.billed).toBe(1);
  });
});
