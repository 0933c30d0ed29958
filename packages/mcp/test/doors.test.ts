// Issue 34, the assistant's doors: the built server driven by the MCP SDK's own client over stdio,
// against the sandbox (or a small node:http service) on 127.0.0.1. Every figure is what the service
// counted, set against the answer cache's lines and the spend ledger's.

import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { acquireLock } from '@enrich/bulk';
import { type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Session, type StartOptions, startSession, tempDir, text } from './helpers.js';

const KEY = '5d2e8b71-9c4f-4a06-b1e3-7f0a9c2d4e68';
let sandbox: SandboxServer;

beforeAll(async () => {
  // Slow enough that calls started together are all on their way at once.
  sandbox = await startSandboxServer({ host: '127.0.0.1', port: 0, keys: [KEY], latencyMs: 300 });
});
afterAll(() => sandbox?.close());

function env(cacheDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ENRICH_API_KEY: KEY,
    ENRICH_BASE_URL: sandbox.url,
    ENRICH_BASE_URL_V3: sandbox.url,
    ENRICH_CACHE_DIR: cacheDir,
    // Answers set aside go to the test's own temp folder.
    TMPDIR: tempDir('enrich-mcp-tmp-'),
    ...extra,
  };
}

async function withSession<T>(options: StartOptions, body: (s: Session) => Promise<T>): Promise<T> {
  const session = await startSession(options);
  try {
    return await body(session);
  } finally {
    await session.close();
  }
}

const lines = (path: string) =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
    : [];
const ledgerCount = (path: string) =>
  lines(path).reduce((n, l) => n + (JSON.parse(l) as { count: number }).count, 0);

describe('one purchase per question', () => {
  it('three spellings of one phone asked at once: one transaction, one journal line, one ledger line', async () => {
    const cacheDir = tempDir();
    const ledger = join(tempDir(), 'ledger.jsonl');
    const before = sandbox.sandbox.transactions(KEY);
    const results = await withSession({ env: env(cacheDir, { ENRICH_LEDGER: ledger }) }, (s) =>
      Promise.all(
        ['5550102030', '(555) 010-2030', '+1 555.010.2030'].map((Phone) => s.call('phone_lookup', { Phone })),
      ),
    );
    expect(sandbox.sandbox.transactions(KEY) - before).toBe(1);
    expect(lines(join(cacheDir, 'answers.jsonl'))).toHaveLength(1);
    expect(ledgerCount(ledger)).toBe(1);
    const spent = results.map((r) => r._meta?.['enrich/transactionsSpent']);
    expect(spent.sort()).toEqual([0, 0, 1]);
    expect(results.filter((r) => r._meta?.['enrich/shared'] === true)).toHaveLength(2);
    for (const r of results) expect(r.structuredContent).toEqual(results[0]?.structuredContent);
    expect(text(results.find((r) => r._meta?.['enrich/shared']) as never)).toMatch(
      /same question asked at the same moment/,
    );
  });

  it('twenty different questions at once: each answer journaled once', async () => {
    const cacheDir = tempDir();
    await withSession({ env: env(cacheDir) }, (s) =>
      Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s.call('phone_lookup', { Phone: `55501040${String(i).padStart(2, '0')}` }),
        ),
      ),
    );
    const keys = lines(join(cacheDir, 'answers.jsonl')).map((l) => (JSON.parse(l) as { key: string }).key);
    expect(keys).toHaveLength(20);
    expect(new Set(keys).size).toBe(20);
  });

  it('Phone and phone with different values: refused, nothing sent; with the same value: one call', async () => {
    const before = sandbox.sandbox.requests();
    await withSession({ env: env(tempDir()) }, async (s) => {
      const refused = await s.call('phone_lookup', { Phone: '5550105001', phone: '5550105002' });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/Phone is given twice with different values \(as Phone and as phone\)/);
      expect(sandbox.sandbox.requests()).toBe(before);
      const same = await s.call('phone_lookup', { Phone: '5550105001', phone: '(555) 010-5001' });
      expect(same.isError).toBeFalsy();
    });
    expect(sandbox.sandbox.requests() - before).toBe(1);
  });
});

describe('a paid answer is kept, whatever holds the cache', () => {
  it('while another process holds the cache (a CLI run), the answer is set aside and the next session is free', async () => {
    const cacheDir = tempDir();
    const environment = env(cacheDir);
    const before = sandbox.sandbox.transactions(KEY);
    // This test process plays the CLI run: it holds the cache's lock for the whole first session.
    const lock = acquireLock(join(cacheDir, 'answers.jsonl'), 'answer cache');
    try {
      const first = await withSession({ env: environment }, (s) =>
        s.call('phone_lookup', { Phone: '5550106001' }),
      );
      expect(first._meta).toMatchObject({ 'enrich/transactionsSpent': 1 });
      expect(first._meta?.['enrich/kept']).toBeUndefined();
    } finally {
      lock.release();
    }
    const again = await withSession({ env: environment }, (s) =>
      s.call('phone_lookup', { Phone: '5550106001' }),
    );
    expect(again._meta).toMatchObject({ 'enrich/fromCache': true, 'enrich/transactionsSpent': 0 });
    expect(sandbox.sandbox.transactions(KEY) - before).toBe(1);
    // The next write moved it into the journal, where the CLI reads it too.
    await withSession({ env: environment }, (s) => s.call('phone_lookup', { Phone: '5550106002' }));
    const keys = lines(join(cacheDir, 'answers.jsonl')).map((l) => (JSON.parse(l) as { key: string }).key);
    expect(keys.filter((k) => k.includes('5550106001'))).toHaveLength(1);
  });

  it('with an unusable cache folder, the answer is set aside: two sessions, one purchase', async () => {
    const blocker = join(tempDir(), 'not-a-folder');
    writeFileSync(blocker, 'a file where the cache folder should be');
    const environment = env(join(blocker, 'cache'));
    const before = sandbox.sandbox.transactions(KEY);
    for (let session = 0; session < 2; session++) {
      await withSession({ env: environment }, (s) => s.call('phone_lookup', { Phone: '5550106101' }));
    }
    expect(sandbox.sandbox.transactions(KEY) - before).toBe(1);
  });

  it('when it can be kept nowhere, the result says so (asking again in another session pays again)', async () => {
    const blocker = join(tempDir(), 'not-a-folder');
    writeFileSync(blocker, 'x');
    const result = await withSession(
      { env: env(join(blocker, 'cache'), { TMPDIR: join(blocker, 'tmp') }) },
      (s) => s.call('phone_lookup', { Phone: '5550106201' }),
    );
    expect(result._meta).toMatchObject({ 'enrich/transactionsSpent': 1, 'enrich/kept': false });
    expect(text(result)).toMatch(/could not be kept in the answer cache/);
  });
});

describe('the file tools use only the files they may', () => {
  function leads(dir: string): string {
    const path = join(dir, 'leads.csv');
    writeFileSync(path, 'name,phone\nJane,5550107001\nOmar,5550107002\n');
    return path;
  }

  it('never replaces the answer cache, the ledger, the input or a lock', async () => {
    const dir = tempDir();
    const cacheDir = join(dir, 'cache');
    const ledger = join(dir, 'ledger.jsonl');
    const path = leads(dir);
    const before = sandbox.sandbox.transactions(KEY);
    await withSession({ env: env(cacheDir, { ENRICH_LEDGER: ledger }), cwd: dir }, async (s) => {
      await s.call('phone_lookup', { Phone: '5550107001' }); // the cache and the ledger exist
      const cache = join(cacheDir, 'answers.jsonl');
      const cacheBefore = readFileSync(cache, 'utf8');
      const ledgerBefore = readFileSync(ledger, 'utf8');
      for (const out of [cache, ledger, path, `${cache}.lock`, join(dir, 'out.csv.lock')]) {
        const quote = await s.call('quote', { operation: 'phone_lookup', path, out });
        expect(quote.isError, out).toBe(true);
        expect(text(quote), out).toMatch(/Nothing was (sent|spent)/);
        const run = await s.call('enrich_file', { operation: 'phone_lookup', path, out, token: 'x' });
        expect(run.isError, out).toBe(true);
      }
      expect(readFileSync(cache, 'utf8')).toBe(cacheBefore);
      expect(readFileSync(ledger, 'utf8')).toBe(ledgerBefore);
    });
    expect(sandbox.sandbox.transactions(KEY) - before).toBe(1);
  });

  it('reads nothing outside the allowed folders, links resolved; the client roots replace the default', async () => {
    const allowed = tempDir();
    const outside = tempDir();
    const secret = join(outside, 'leads.csv');
    writeFileSync(secret, 'phone\n5550107101\n');
    symlinkSync(secret, join(allowed, 'link.csv'));
    symlinkSync(outside, join(allowed, 'dir-link'));
    const inside = leads(allowed);
    await withSession({ env: env(tempDir()), cwd: allowed }, async (s) => {
      for (const path of [
        '/etc/passwd',
        secret,
        join(allowed, 'link.csv'),
        join(allowed, 'dir-link', 'leads.csv'),
      ]) {
        const quote = await s.call('quote', { operation: 'phone_lookup', path });
        expect(quote.isError, path).toBe(true);
        expect(text(quote), path).toMatch(/outside the folders this server may use/);
        expect(JSON.stringify(quote), path).not.toMatch(/root:x|5550107101/);
      }
      const ok = await s.call('quote', { operation: 'phone_lookup', path: 'leads.csv' });
      expect(ok.isError).toBeFalsy();
      expect(ok.structuredContent).toMatchObject({ path: inside, distinct: 2 });
      // An output outside is refused too.
      const out = await s.call('quote', {
        operation: 'phone_lookup',
        path: inside,
        out: join(outside, 'o.csv'),
      });
      expect(text(out)).toMatch(/out .* is outside the folders/);
    });
    // A client that declares roots: they are the folders (the working folder no longer is).
    await withSession({ env: env(tempDir()), cwd: allowed, roots: [outside] }, async (s) => {
      expect((await s.call('quote', { operation: 'phone_lookup', path: secret })).isError).toBeFalsy();
      expect(text(await s.call('quote', { operation: 'phone_lookup', path: inside }))).toMatch(
        /outside the folders/,
      );
    });
  });

  it('the key in a cell, with its dashes removed, never reaches the model; a long cell is masked', async () => {
    const dir = tempDir();
    const bare = KEY.replaceAll('-', '');
    writeFileSync(
      join(dir, 'creds.csv'),
      `phone,email\n${bare},a@example.com\n${KEY.toUpperCase()},b@example.com\n`,
    );
    writeFileSync(join(dir, '.env'), `phone\nENRICH_API_KEY=${bare}\n`);
    await withSession({ env: env(tempDir()), cwd: dir }, async (s) => {
      for (const path of ['creds.csv', '.env']) {
        const quote = await s.call('quote', { operation: 'phone_lookup', path });
        const everything = JSON.stringify(quote)
          .replace(/[^0-9a-f]/gi, '')
          .toLowerCase();
        for (let i = 0; i + 8 <= bare.length; i++)
          expect(everything, path).not.toContain(bare.slice(i, i + 8));
        expect(text(quote)).toMatch(/row 2: Phone must be[^;]*; got "[^"]{4}…" \(\d+ characters\)/);
      }
    });
  });

  it('a FIFO, a socket, /dev/stdin or /proc/self/fd/1: refused at once, and the server goes on', async () => {
    const dir = tempDir();
    execFileSync('mkfifo', [join(dir, 'fifo.csv')]);
    const socketServer = createNetServer().listen(join(dir, 'sock.csv'));
    await once(socketServer, 'listening');
    mkdirSync(join(dir, 'sub'));
    const path = leads(dir);
    try {
      // Even with / allowed, nothing but a regular file is opened.
      await withSession({ env: env(tempDir()), args: ['--allow-dir', '/'] }, async (s) => {
        for (const given of ['fifo.csv', 'sock.csv', '/dev/stdin', '/proc/self/fd/1', '/dev/zero', 'sub']) {
          const target = given.startsWith('/') ? given : join(dir, given);
          const [quote, spend] = await Promise.all([
            s.call('quote', { operation: 'phone_lookup', path: target }),
            s.call('spend'),
          ]);
          expect(quote.isError, given).toBe(true);
          expect(text(quote), given).toMatch(/is (a FIFO|a socket|a device|a directory)/);
          expect(spend.isError, given).toBeFalsy();
        }
        const out = await s.call('quote', { operation: 'phone_lookup', path, out: join(dir, 'fifo.csv') });
        expect(text(out)).toMatch(/is a FIFO \(named pipe\); a run never replaces it/);
        expect((await s.call('spend')).isError).toBeFalsy();
      });
    } finally {
      socketServer.close();
    }
  });
});

describe('stopping', () => {
  let slow: Server;
  let slowUrl = '';
  let asked = 0;
  beforeAll(async () => {
    // A service that asks for a 47-second wait.
    slow = createServer((req, res) => {
      asked++;
      req.resume();
      res.writeHead(429, { 'retry-after': '47' });
      res.end();
    });
    slow.listen(0, '127.0.0.1');
    await once(slow, 'listening');
    slowUrl = `http://127.0.0.1:${(slow.address() as { port: number }).port}`;
  });
  afterAll(() => slow?.close());

  it('Ctrl-C while a call waits on Retry-After: the server exits within 2 s', async () => {
    const session = await startSession({
      env: env(tempDir(), { ENRICH_BASE_URL: slowUrl, ENRICH_BASE_URL_V3: slowUrl }),
    });
    const call = session.call('phone_lookup', { Phone: '5550108001' }).catch((e: unknown) => e);
    while (asked === 0) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200)); // now waiting out the Retry-After
    const pid = session.pid();
    expect(pid).toBeGreaterThan(0);
    const started = Date.now();
    process.kill(pid as number, 'SIGINT');
    const code = await session.exited();
    const took = Date.now() - started;
    expect(took).toBeLessThan(2000);
    expect(code).toBe(130);
    expect(asked).toBe(1);
    await call;
    await session.close();
  });
});
