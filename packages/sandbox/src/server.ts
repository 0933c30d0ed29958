// The sandbox over real HTTP (or HTTPS with a freshly generated self-signed certificate), on
// 127.0.0.1 by default. The server adds the latency the handler asks for, then answers, delivering
// the body whole, cut half-way or a byte at a time as the handler says (misbehave.ts). A second
// listener, the decoy, is where `redirect` points: it counts what reaches it, so a test can show a
// client never followed. Clients that drop mid-request or mid-answer cost the server nothing: every
// stream error is caught, so the process never exits because of one.
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
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
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1_000_000;

export async function startSandboxServer(options: ServerOptions = {}): Promise<SandboxServer> {
  const decoy = await startDecoy();
  const sandbox = createSandbox({ ...options, redirectOrigin: decoy.url });
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
  // A broken request line or a socket reset before a request was read: drop that socket only.
  server.on('clientError', (_error, socket) => socket.destroy());
  const { port } = server.address() as AddressInfo;
  const scheme = options.https ? 'https' : 'http';
  return {
    url: `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    sandbox,
    certificate,
    decoy: { url: decoy.url, hits: decoy.hits },
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
  decoy.on('clientError', (_error, socket) => socket.destroy());
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

async function serve(sandbox: Sandbox, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      res
        .writeHead(413, { 'content-type': 'application/json' })
        .end('{"status":413,"error":"Body too large"}');
      return;
    }
    chunks.push(chunk as Buffer);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const answer = sandbox.handle({
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    headers,
    body: Buffer.concat(chunks).toString('utf8'),
  });
  if (answer.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
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
