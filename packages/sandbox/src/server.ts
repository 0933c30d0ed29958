// The sandbox over real HTTP (or HTTPS with a freshly generated self-signed certificate), on
// 127.0.0.1 by default. The server adds the latency the handler asks for, then answers.
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
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
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1_000_000;

export async function startSandboxServer(options: ServerOptions = {}): Promise<SandboxServer> {
  const sandbox = createSandbox(options);
  const host = options.host ?? '127.0.0.1';
  const listener = (req: IncomingMessage, res: ServerResponse) => void serve(sandbox, req, res);
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
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const scheme = options.https ? 'https' : 'http';
  return {
    url: `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    sandbox,
    certificate,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
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
  res.writeHead(answer.status, answer.headers).end(answer.body);
}
