// The sandbox over real HTTP (or HTTPS with a freshly generated self-signed certificate), on
// 127.0.0.1 by default. The server adds the latency the handler asks for, then answers, delivering
// the body whole, cut half-way or a byte at a time as the handler says (misbehave.ts). A second
// listener, the decoy, is where `redirect` points: it counts what reaches it, so a test can show a
// client never followed. Clients that drop mid-request or mid-answer cost the server nothing: every
// stream error is caught, so the process never exits because of one.
// Bad HTTP is answered as HTTP, then the connection closed: headers over Node's limit (16 KiB) 431,
// anything the parser refuses (a garbage request line, a bad chunk size, Content-Length with
// Transfer-Encoding) 400, a body over MAX_BODY_BYTES 413 (at once when Content-Length says so).
// Closing lingers: what the client still sends is read and dropped for a moment, so that its TCP
// stack does not throw the answer away on a reset before it reads it.
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { generate } from 'selfsigned';
import { TRICKLE_INTERVAL_MS } from './misbehave.js';
import { createSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';

export interface ServerOptions extends SandboxOptions {
  readonly port?: number;
  readonly host?: string;
  readonly https?: boolean;
}

export interface SandboxServer {
  /** Origin to use as both base URLs, e.g. http://127.0.0.1:8787 */
  readonly url: string;
  readonly sandbox: Sandbox;
  /** The self-signed certificate (PEM) when serving HTTPS, for clients that must trust it. */
  readonly certificate: string | undefined;
  /** Where `redirect` points: requests that reached it (a client that followed a redirect). */
  readonly decoy: { readonly url: string; hits(): number };
  /** The admin paths' token (header `x-sandbox-admin`), random unless given in the options. */
  readonly adminToken: string;
  close(): Promise<void>;
}

/** The largest request body the sandbox reads (1 MiB); a larger one is answered 413. */
const MAX_BODY_BYTES = 1024 * 1024;
/** How long a refused connection goes on reading (and dropping) what the client sends before it is destroyed. */
const LINGER_MS = 2000;

export async function startSandboxServer(options: ServerOptions = {}): Promise<SandboxServer> {
  const decoy = await startDecoy();
  let sandbox: Sandbox;
  try {
    sandbox = createSandbox({ ...options, redirectOrigin: decoy.url });
  } catch (error) {
    // A knob refused (a RangeError): the decoy must not stay open and keep the process alive.
    await decoy.close();
    throw error;
  }
  const host = options.host ?? '127.0.0.1';
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    // A client that goes away makes these streams emit errors; they are expected, not fatal.
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    serve(sandbox, req, res).catch(() => res.destroy());
  };
  let certificate: string | undefined;
  let server: ReturnType<typeof createHttpServer>;
  if (options.https) {
    const pems = await generate([{ name: 'commonName', value: host }], {
      keySize: 2048,
      extensions: [
        {
          name: 'subjectAltName',
          altNames: [
            { type: 7, ip: host },
            { type: 2, value: 'localhost' },
          ],
        },
      ],
    });
    certificate = pems.cert;
    server = createHttpsServer({ key: pems.private, cert: pems.cert }, listener);
  } else {
    server = createHttpServer(listener);
  }
  // Benchmarks hold many connections open at once.
  server.keepAliveTimeout = 10_000;
  server.maxRequestsPerSocket = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => {
      void decoy.close();
      reject(e);
    });
    server.listen(options.port ?? 0, host, () => resolve());
  });
  // Bad HTTP (a header too large, a garbage request line, a bad chunk...): 431 or 400, then close.
  server.on('clientError', answerClientError);
  const { port } = server.address() as AddressInfo;
  const scheme = options.https ? 'https' : 'http';
  return {
    url: `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    sandbox,
    certificate,
    decoy: { url: decoy.url, hits: decoy.hits },
    adminToken: sandbox.adminToken,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await decoy.close();
    },
  };
}

/** A listener on another port that answers 404 to everything and counts what reached it. */
async function startDecoy(): Promise<{ url: string; hits(): number; close(): Promise<void> }> {
  let hits = 0;
  const decoy = createHttpServer((req, res) => {
    hits++;
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    req.resume();
    res
      .writeHead(404, { 'content-type': 'text/plain' })
      .end('The sandbox redirected here to see whether the client follows redirects. It should not.\n');
  });
  decoy.on('clientError', answerClientError);
  await new Promise<void>((resolve) => decoy.listen(0, '127.0.0.1', () => resolve()));
  const { port } = decoy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        decoy.close(() => resolve());
        decoy.closeAllConnections();
      }),
  };
}

/** Sockets already answered after a client error: the parser reports its error again on every chunk. */
const refusedSockets = new WeakSet<Duplex>();

/**
 * The server's `clientError`: an answer in HTTP to what Node's parser refused, unless the client
 * is gone (ECONNRESET), the socket cannot be written, or an answer has already begun on it.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (refusedSockets.has(socket)) return;
  refusedSockets.add(socket);
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large']
      : error.code === 'HPE_HEADER_TIMEOUT' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout']
        : [400, 'Bad Request'];
  lingeringClose(socket, `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * Sends `text` (if any) and ends the connection, but reads and drops what the client still sends
 * until it closes or LINGER_MS passes: destroying a socket with unread input resets the
 * connection, and a reset can erase the answer before the client reads it.
 */
function lingeringClose(socket: Duplex, text?: string): void {
  socket.on('error', () => undefined);
  socket.end(text);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  socket.resume();
}

/** Reads a request's body, or stops at MAX_BODY_BYTES (what is left is still read, and dropped). */
function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (tooLarge) return;
      if (size > MAX_BODY_BYTES) {
        tooLarge = true;
        chunks.length = 0;
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
    req.on('close', () => reject(new Error('The client went away')));
  });
}

/**
 * 413, as JSON, written on the socket itself (the response object would destroy the socket as soon
 * as it is sent), then a lingering close: the rest of the body is read and dropped.
 */
function tooLarge(req: IncomingMessage): void {
  const body = JSON.stringify({ status: 413, error: `The body is larger than ${MAX_BODY_BYTES} bytes` });
  req.resume();
  lingeringClose(
    req.socket,
    `HTTP/1.1 413 Payload Too Large\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

async function serve(sandbox: Sandbox, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (Number(req.headers['content-length']) > MAX_BODY_BYTES) return tooLarge(req);
  const read = await readBody(req);
  if (read === 'too-large') return tooLarge(req);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const answer = sandbox.handle({
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    headers,
    body: read.toString('utf8'),
  });
  if (answer.delayMs > 0) await waitFor(answer.delayMs);
  if (res.destroyed) return;
  const body = Buffer.from(answer.body, 'utf8');
  if (answer.delivery === 'cut') {
    // Promise the whole body, send half, then break the connection.
    res.writeHead(answer.status, { ...answer.headers, 'content-length': String(body.length) });
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
    return;
  }
  if (answer.delivery === 'trickle') {
    res.writeHead(answer.status, { ...answer.headers, 'content-length': String(body.length) });
    trickle(res, body);
    return;
  }
  res.writeHead(answer.status, answer.headers).end(body);
}

/** The longest timer Node runs as asked: a longer one runs at once (with a warning). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits `ms`, in steps a timer can hold: one latency is at most an hour (knob-rules.ts), but waits
 * in the capacity's queue add up (600 hour-long answers ahead is 25 days), and must not overflow to
 * an answer at once. Unref'd: the listening server keeps the process alive, and once it is closed
 * no answer can be sent anyway.
 */
function waitFor(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const step = (left: number) => {
      const next = left > MAX_TIMER_MS ? () => step(left - MAX_TIMER_MS) : resolve;
      setTimeout(next, Math.min(left, MAX_TIMER_MS)).unref();
    };
    step(ms);
  });
}

/** Sends one byte now and one every TRICKLE_INTERVAL_MS, until done or the client goes away. */
function trickle(res: ServerResponse, body: Buffer): void {
  let sent = 0;
  const next = () => {
    if (res.destroyed) return clearInterval(timer);
    res.write(body.subarray(sent, sent + 1));
    sent++;
    if (sent >= body.length) {
      clearInterval(timer);
      res.end();
    }
  };
  const timer = setInterval(next, TRICKLE_INTERVAL_MS);
  res.on('close', () => clearInterval(timer));
  next();
}
