// Small real HTTP servers that misbehave the way services, proxies and networks do, for what the
// sandbox's misbehave modes cannot express (or where a test needs to see each request). Each counts
// the requests it received and the transactions it billed (a 200 it started to send), so tests can
// compare "the service counted" with what the client journaled.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hostile {
  readonly url: string;
  /** Requests received (any path). */
  requests: number;
  /** 200s started: what a real service would bill. */
  transactions: number;
  /** Request bodies and headers as received. */
  readonly seen: { body: string; headers: IncomingMessage['headers']; url: string }[];
  close(): Promise<void>;
}

export type Behaviour = (
  request: { body: string; count: number },
  response: ServerResponse,
  bill: () => void,
) => void;

export async function startHostile(behaviour: Behaviour): Promise<Hostile> {
  const hostile: Hostile = {
    url: '',
    requests: 0,
    transactions: 0,
    seen: [],
    close: async () => undefined,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      hostile.requests++;
      hostile.seen.push({ body, headers: req.headers, url: req.url ?? '' });
      behaviour({ body, count: hostile.requests }, res, () => {
        hostile.transactions++;
      });
    });
    // A client that gives up mid-answer must not take the server down.
    res.on('error', () => undefined);
    req.on('error', () => undefined);
  });
  server.on('clientError', (_e, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  Object.assign(hostile, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
  return hostile;
}

/** A Phone Lookup record as the API description has it. */
export function phoneRecord(phone: string): Record<string, unknown> {
  return {
    Name: { FName: 'Ada', LName: 'Lovelace', MName: '' },
    Address: {
      House: '1',
      PreDir: '',
      Street: 'Main',
      StrType: 'St',
      PostDir: '',
      AptType: null,
      City: 'Springfield',
      State: 'IL',
      Zip: '62701',
      Z4: '',
      CNTY: 'Sangamon',
      Deliverable: true,
      ValDate: '1/2/2024',
    },
    trace: `t-${phone}`,
  };
}

/** 429 with this Retry-After, every time. */
export function retryAfter(value: string): Behaviour {
  return (_req, res) => {
    res.writeHead(429, { 'retry-after': value, 'content-type': 'application/json' });
    res.end('{}');
  };
}

/** A billed 200 whose body arrives one byte every `everyMs` (a proxy or a network that crawls). */
export function trickle(everyMs = 2000): Behaviour {
  return ({ body }, res, bill) => {
    bill();
    const phone = (JSON.parse(body) as { Phone?: string }).Phone ?? '';
    const text = JSON.stringify(phoneRecord(phone));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
    let i = 0;
    res.write(text[i++]);
    const timer = setInterval(() => {
      if (res.destroyed || i >= text.length) {
        clearInterval(timer);
        if (!res.destroyed) res.end();
        return;
      }
      res.write(text[i++]);
    }, everyMs);
    res.on('close', () => clearInterval(timer));
  };
}
