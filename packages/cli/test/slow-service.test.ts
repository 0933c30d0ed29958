// Issue 27, item 2, over real HTTP on 127.0.0.1: a paid answer is not bought again because it was
// slow. A request sent whole whose deadline passed (or whose connection was lost while waiting) may
// have been paid: not retried, and its row, the summary and the exit code say so. A connection
// refused or reset before the request was sent is still retried. Scenario in edge-slow.scenario.ts.

import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { DEMO_KEY } from '@enrich/sandbox';
import { describe, expect, it } from 'vitest';
import { SHORT_TIMEOUT, slowerThanTimeout } from './edge-slow.scenario.js';
import { phone, readRecords, runCli, tempDir, writeCsv } from './helpers.js';
import { bulkArgs, PHONES } from './hostile-measure.js';

describe('a service slower than --timeout', () => {
  it('bills one transaction per row, not five: the rows say "may have been paid", the summary counts them, exit 7', async () => {
    const m = await slowerThanTimeout.run();
    // One request per row reached the service (main sent each five times, each billed).
    expect(m.requests).toBe(PHONES.length);
    expect(m.counted).toBe(PHONES.length);
    // No answer arrived, so nothing was journaled (a rerun asks again, as for Ctrl-C's abandoned).
    expect(m.journal).toBe(0);
    expect(m.code).toBe(7);
    expect(m.rows).toHaveLength(PHONES.length);
    for (const row of m.rows) {
      expect(row.status).toMatch(
        /^error: May have been paid: the request was sent to 127\.0\.0\.1:\d+ but no answer came/,
      );
      expect(row.status).toContain(`no complete answer within ${Number(SHORT_TIMEOUT) * 1000} ms`);
      expect(row.status).toContain('A rerun asks for it again');
    }
    expect(m.stdout).toMatch(new RegExp(`may have been paid +${PHONES.length} \\(sent, no answer in time`));
    expect(m.stdout).toMatch(/transactions spent +0\b/);
    expect(m.stdout).not.toMatch(/retries/);
    expect(m.stderr).toMatch(
      /3 requests were sent but got no answer .* not sent again .* A rerun asks again/,
    );
  }, 30_000);

  it('--json: the summary says how many may have been paid; none counts as spent', async () => {
    const server = await slowTcp();
    try {
      const dir = tempDir();
      writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
      const ran = await runCli([...bulkArgs, '--timeout', '0.3', '--json'], {
        env: envFor(server.url),
        cwd: dir,
      });
      const summary = JSON.parse(ran.stdout) as Record<string, unknown>;
      expect(summary).toMatchObject({ unanswered: 1, transactions: 0, errors: 1, requests: 1, attempts: 1 });
      expect(server.connections).toBe(1);
      expect(ran.code).toBe(7);
    } finally {
      await server.close();
    }
  }, 20_000);

  it('--timeout takes seconds greater than 0 and at most an hour (0.5 is half a second)', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    for (const bad of ['0', '-1', 'NaN', 'Infinity', '1e9', '3601', '0.0001', 'abc']) {
      const ran = await runCli([...bulkArgs, '--timeout', bad], {
        env: envFor('http://127.0.0.1:9'),
        cwd: dir,
      });
      expect(ran.code, bad).toBe(2);
      expect(ran.stderr, bad).toContain(
        `--timeout takes a number of seconds greater than 0 and at most 3600 (0.5 is half a second); got "${bad}"`,
      );
    }
  });
});

describe('a connection lost before or after the request was sent', () => {
  it('reset before the request went out: retried (each attempt counted); reset after it was read: not retried, may have been paid', async () => {
    // Resets every connection as it is accepted: the request never leaves the client.
    const early = await tcpServer((socket) => socket.resetAndDestroy());
    // Reads the request, then resets: it reached the service, which may have billed it.
    const late = await tcpServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
    try {
      const dir = tempDir();
      writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
      const args = [...bulkArgs, '--max-attempts', '3', '--json'];
      const refused = await runCli(args, { env: envFor(early.url), cwd: dir });
      expect(early.connections).toBe(3);
      expect(JSON.parse(refused.stdout)).toMatchObject({ attempts: 3, unanswered: 0, errors: 1 });
      expect(readRecords(join(dir, 'out.csv'))[0]?.status).toMatch(/^error: Could not reach the service/);

      const lost = await runCli(args, { env: envFor(late.url), cwd: dir });
      expect(late.connections).toBe(1);
      expect(JSON.parse(lost.stdout)).toMatchObject({ attempts: 1, unanswered: 1, errors: 1 });
      expect(readRecords(join(dir, 'out.csv'))[0]?.status).toMatch(
        /^error: May have been paid: .*the connection was lost while waiting for the answer/,
      );
      expect(lost.code).toBe(7);
    } finally {
      await early.close();
      await late.close();
    }
  }, 30_000);
});

function envFor(url: string): Record<string, string> {
  return { ENRICH_API_KEY: DEMO_KEY, ENRICH_BASE_URL: url, ENRICH_BASE_URL_V3: url };
}

interface TcpServer {
  readonly url: string;
  /** Connections accepted. */
  connections: number;
  close(): Promise<void>;
}

/** A TCP server that does `onSocket` with each connection and counts them. */
async function tcpServer(onSocket: (socket: Socket) => void): Promise<TcpServer> {
  const sockets = new Set<Socket>();
  const result: TcpServer = { url: '', connections: 0, close: async () => undefined };
  const server: Server = createServer((socket) => {
    result.connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(result, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
}

/** Reads each request and never answers. */
function slowTcp(): Promise<TcpServer> {
  return tcpServer((socket) => socket.resume());
}
