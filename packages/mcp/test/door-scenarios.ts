// Issue 34's doors as scenarios: the built server driven by the MCP SDK's own client over stdio,
// each against its own sandbox (or a small node:http service) on 127.0.0.1. Each measures what the
// service received and billed, the answer cache's lines and the spend ledger's transactions, and
// what the tools said. test/doors.test.ts asserts them; scripts/hostile-report.ts prints them.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { acquireLock } from '@enrich/bulk';
import { type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Session, type StartOptions, startSession, tempDir, text } from './helpers.js';

export const KEY = '5d2e8b71-9c4f-4a06-b1e3-7f0a9c2d4e68';

export interface DoorMeasured {
  /** Requests that reached the service. */
  readonly requests: number;
  /** Transactions the service counted. */
  readonly counted: number;
  /** Lines of the answer cache (the journal). */
  readonly journal: number;
  /** Transactions in the spend ledger. */
  readonly ledger: number;
  /** What the person or the model was told, in short. */
  readonly said: string;
  readonly ms: number;
  readonly more: Readonly<Record<string, number | string | boolean>>;
}

export interface DoorScenario {
  readonly id: string;
  /** The item of issue 34 it shows. */
  readonly issue: string;
  run(): Promise<DoorMeasured>;
}

/** One scenario's world: a sandbox, a cache folder, a ledger, a temp folder for set-aside answers. */
class World {
  readonly cacheDir: string;
  readonly ledger = join(tempDir(), 'ledger.jsonl');
  readonly tmp = tempDir('enrich-mcp-tmp-');
  readonly dir = tempDir();
  private constructor(
    readonly sandbox: SandboxServer,
    cacheDir?: string,
  ) {
    this.cacheDir = cacheDir ?? tempDir();
  }

  static async start(cacheDir?: string, base?: string): Promise<World> {
    // Slow enough that calls started together are all on their way at once.
    const sandbox = await startSandboxServer({ host: '127.0.0.1', port: 0, keys: [KEY], latencyMs: 300 });
    const world = new World(sandbox, cacheDir);
    world.base = base ?? sandbox.url;
    return world;
  }

  base = '';

  get cache(): string {
    return join(this.cacheDir, 'answers.jsonl');
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ENRICH_API_KEY: KEY,
      ENRICH_BASE_URL: this.base,
      ENRICH_BASE_URL_V3: this.base,
      ENRICH_CACHE_DIR: this.cacheDir,
      ENRICH_LEDGER: this.ledger,
      TMPDIR: this.tmp,
      ...extra,
    };
  }

  async session<T>(options: Partial<StartOptions>, body: (s: Session) => Promise<T>): Promise<T> {
    const session = await startSession({ env: this.env(), cwd: this.dir, ...options });
    try {
      return await body(session);
    } finally {
      await session.close();
    }
  }

  async measure(
    started: number,
    said: string,
    more: Record<string, number | string | boolean> = {},
    /** What another service than the sandbox received and counted. */
    service?: { requests: number; counted: number },
  ): Promise<DoorMeasured> {
    const measured = {
      requests: service?.requests ?? this.sandbox.sandbox.requests(),
      counted: service?.counted ?? this.sandbox.sandbox.transactions(KEY),
      journal: lines(this.cache).length,
      ledger: lines(this.ledger).reduce((n, l) => n + (JSON.parse(l) as { count: number }).count, 0),
      said,
      ms: Date.now() - started,
      more,
    };
    await this.sandbox.close();
    return measured;
  }
}

function lines(path: string): string[] {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
    : [];
}

const spentOf = (r: CallToolResult) => Number(r._meta?.['enrich/transactionsSpent'] ?? 0);
const firstLine = (r: CallToolResult) => text(r).split('\n')[0] ?? '';

function scenario(id: string, issue: string, run: () => Promise<DoorMeasured>): DoorScenario {
  return { id, issue, run };
}

export const DOOR_SCENARIOS: readonly DoorScenario[] = [
  scenario('mcp-at-once', '1. three spellings of one phone asked at once', async () => {
    const w = await World.start();
    const started = Date.now();
    const results = await w.session({}, (s) =>
      Promise.all(
        ['5550102030', '(555) 010-2030', '+1 555.010.2030'].map((Phone) => s.call('phone_lookup', { Phone })),
      ),
    );
    return w.measure(started, results.map(spentOf).join('+'), {
      shared: results.filter((r) => r._meta?.['enrich/shared'] === true).length,
      sameRecord: results.every(
        (r) => JSON.stringify(r.structuredContent) === JSON.stringify(results[0]?.structuredContent),
      ),
      sharedText: /same question asked at the same moment/.test(
        text(results.find((r) => r._meta?.['enrich/shared']) ?? { content: [] }),
      ),
    });
  }),

  scenario(
    'mcp-lock-held',
    '2. a paid answer while a CLI run holds the cache, then a new session',
    async () => {
      const w = await World.start();
      const started = Date.now();
      // This process plays the CLI run: it holds the cache's lock for the whole first session.
      const lock = acquireLock(w.cache, 'answer cache');
      let first: CallToolResult;
      try {
        first = await w.session({}, (s) => s.call('phone_lookup', { Phone: '5550106001' }));
      } finally {
        lock.release();
      }
      const again = await w.session({}, (s) => s.call('phone_lookup', { Phone: '5550106001' }));
      // The next paid answer's write moves the set-aside one into the journal.
      await w.session({}, (s) => s.call('phone_lookup', { Phone: '5550106002' }));
      const keys = lines(w.cache).map((l) => (JSON.parse(l) as { key: string }).key);
      return w.measure(started, `${spentOf(first)} then ${spentOf(again)}`, {
        firstKept: first._meta?.['enrich/kept'] !== false,
        againFromCache: again._meta?.['enrich/fromCache'] === true,
        journaledOnce: keys.filter((k) => k.includes('5550106001')).length,
      });
    },
  ),

  scenario('mcp-cache-unusable', '2. ENRICH_CACHE_DIR unusable: two sessions, one question', async () => {
    const blocker = join(tempDir(), 'not-a-folder');
    writeFileSync(blocker, 'a file where the cache folder should be');
    const w = await World.start(join(blocker, 'cache'));
    const started = Date.now();
    const spent: number[] = [];
    for (let session = 0; session < 2; session++) {
      spent.push(spentOf(await w.session({}, (s) => s.call('phone_lookup', { Phone: '5550106101' }))));
    }
    return w.measure(started, spent.join(' then '));
  }),

  scenario(
    'mcp-kept-nowhere',
    '2. neither the cache nor the temp folder usable: the result says so',
    async () => {
      const blocker = join(tempDir(), 'not-a-folder');
      writeFileSync(blocker, 'x');
      const w = await World.start(join(blocker, 'cache'));
      const started = Date.now();
      const result = await w.session({ env: w.env({ TMPDIR: join(blocker, 'tmp') }) }, (s) =>
        s.call('phone_lookup', { Phone: '5550106201' }),
      );
      return w.measure(started, text(result).includes('could not be kept') ? 'could not be kept' : 'silent', {
        kept: result._meta?.['enrich/kept'] !== false,
        spent: spentOf(result),
      });
    },
  ),

  scenario(
    'mcp-out-protected',
    '3. enrich_file out = the cache, the ledger, the input or a lock',
    async () => {
      const w = await World.start();
      const path = join(w.dir, 'leads.csv');
      writeFileSync(path, 'name,phone\nJane,5550107001\nOmar,5550107002\n');
      const started = Date.now();
      const refusals: string[] = [];
      let unchanged = false;
      // Every folder allowed: the refusals are the file guard's, not the roots'.
      await w.session({ args: ['--allow-dir', '/'] }, async (s) => {
        await s.call('phone_lookup', { Phone: '5550107001' }); // the cache and the ledger exist
        const before = [readFileSync(w.cache, 'utf8'), readFileSync(w.ledger, 'utf8')];
        for (const out of [w.cache, w.ledger, path, `${w.cache}.lock`, join(w.dir, 'out.csv.lock')]) {
          const quote = await s.call('quote', { operation: 'phone_lookup', path, out });
          const run = await s.call('enrich_file', { operation: 'phone_lookup', path, out, token: 'x' });
          if (quote.isError && run.isError && /Nothing was (sent|spent)/.test(text(quote)))
            refusals.push(out);
        }
        unchanged =
          readFileSync(w.cache, 'utf8') === before[0] && readFileSync(w.ledger, 'utf8') === before[1];
      });
      return w.measure(started, `${refusals.length} of 5 refused`, { refused: refusals.length, unchanged });
    },
  ),

  scenario('mcp-key-in-cell', '6. quote on a file whose cell holds the key without its dashes', async () => {
    const w = await World.start();
    const bare = KEY.replaceAll('-', '');
    writeFileSync(
      join(w.dir, 'creds.csv'),
      `phone,email\n${bare},a@example.com\n${KEY.toUpperCase()},b@x.com\n`,
    );
    writeFileSync(join(w.dir, '.env'), `phone\nENRICH_API_KEY=${bare}\n`);
    const started = Date.now();
    let leaked = 0;
    let masked = 0;
    await w.session({}, async (s) => {
      for (const path of ['creds.csv', '.env']) {
        const quote = await s.call('quote', { operation: 'phone_lookup', path });
        const digits = JSON.stringify(quote)
          .replace(/[^0-9a-f]/gi, '')
          .toLowerCase();
        let longest = 0;
        for (let n = 1; n <= bare.length; n++) {
          for (let i = 0; i + n <= bare.length; i++) if (digits.includes(bare.slice(i, i + n))) longest = n;
          if (longest < n) break;
        }
        leaked = Math.max(leaked, longest);
        if (/row 2: Phone must be[^;]*; got "[^"]{4}…" \(\d+ characters\)/.test(text(quote))) masked++;
      }
    });
    return w.measure(started, `longest run of the key's digits: ${leaked} of 32`, {
      longestRun: leaked,
      masked,
    });
  }),

  scenario(
    'mcp-outside-roots',
    '7. quote on /etc/passwd and through links out of the allowed folder',
    async () => {
      const w = await World.start();
      const outside = tempDir();
      const secret = join(outside, 'leads.csv');
      writeFileSync(secret, 'phone\n5550107101\n');
      symlinkSync(secret, join(w.dir, 'link.csv'));
      symlinkSync(outside, join(w.dir, 'dir-link'));
      writeFileSync(join(w.dir, 'leads.csv'), 'phone\n5550107102\n');
      const started = Date.now();
      let refused = 0;
      let readOutside = 0;
      let insideOk = false;
      let rootsReplace = false;
      await w.session({}, async (s) => {
        for (const path of ['/etc/passwd', secret, 'link.csv', join('dir-link', 'leads.csv')]) {
          const quote = await s.call('quote', { operation: 'phone_lookup', path });
          if (quote.isError && /outside the folders this server may use/.test(text(quote))) refused++;
          if (/root:x|5550107101/.test(JSON.stringify(quote))) readOutside++;
        }
        insideOk = !(await s.call('quote', { operation: 'phone_lookup', path: 'leads.csv' })).isError;
      });
      await w.session({ roots: [outside] }, async (s) => {
        const inRoot = await s.call('quote', { operation: 'phone_lookup', path: secret });
        const notInRoot = await s.call('quote', {
          operation: 'phone_lookup',
          path: join(w.dir, 'leads.csv'),
        });
        rootsReplace = !inRoot.isError && /outside the folders/.test(text(notInRoot));
      });
      return w.measure(started, `${refused} of 4 refused, ${readOutside} read`, {
        refused,
        readOutside,
        insideOk,
        rootsReplace,
      });
    },
  ),

  scenario(
    'mcp-fifo-socket-device',
    '8, 9. quote on a FIFO, a socket, /dev/stdin, /proc/self/fd/1',
    async () => {
      const w = await World.start();
      execFileSync('mkfifo', [join(w.dir, 'fifo.csv')]);
      const socket = createNetServer().listen(join(w.dir, 'sock.csv'));
      await once(socket, 'listening');
      mkdirSync(join(w.dir, 'sub'));
      const leads = join(w.dir, 'leads.csv');
      writeFileSync(leads, 'phone\n5550107201\n');
      const started = Date.now();
      let refused = 0;
      let spendAnswered = 0;
      const targets = ['fifo.csv', 'sock.csv', '/dev/stdin', '/proc/self/fd/1', '/dev/zero', 'sub'];
      try {
        // Even with / allowed, nothing but a regular file is opened.
        await w.session({ args: ['--allow-dir', '/'] }, async (s) => {
          for (const given of targets) {
            const path = given.startsWith('/') ? given : join(w.dir, given);
            const [quote, spend] = await Promise.all([
              s.call('quote', { operation: 'phone_lookup', path }),
              s.call('spend'),
            ]);
            if (quote.isError && /is (a FIFO|a socket|a device|a directory)/.test(text(quote))) refused++;
            if (!spend.isError) spendAnswered++;
          }
          const out = await s.call('quote', {
            operation: 'phone_lookup',
            path: leads,
            out: join(w.dir, 'fifo.csv'),
          });
          if (/is a FIFO \(named pipe\); a run never replaces it/.test(text(out))) refused++;
        });
      } finally {
        socket.close();
      }
      return w.measure(started, `${refused} of ${targets.length + 1} refused, server alive`, {
        refused,
        spendAnswered,
      });
    },
  ),

  scenario('mcp-sigint-retry-after', '10. Ctrl-C while a call waits on Retry-After: 47', async () => {
    let asked = 0;
    const slow = createServer((req, res) => {
      asked++;
      req.resume();
      res.writeHead(429, { 'retry-after': '47' });
      res.end();
    });
    slow.listen(0, '127.0.0.1');
    await once(slow, 'listening');
    const w = await World.start(undefined, `http://127.0.0.1:${(slow.address() as { port: number }).port}`);
    const session = await startSession({ env: w.env() });
    const call = session.call('phone_lookup', { Phone: '5550108001' }).catch((e: unknown) => e);
    while (asked === 0) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200)); // now waiting out the Retry-After
    const started = Date.now();
    process.kill(session.pid() as number, 'SIGINT');
    const code = await session.exited();
    const exitMs = Date.now() - started;
    await call;
    await session.close();
    slow.close();
    return w.measure(
      started,
      `exit ${code} after ${(exitMs / 1000).toFixed(1)} s`,
      { code: String(code), exitMs, asked },
      { requests: asked, counted: 0 },
    );
  }),

  scenario('mcp-phone-twice', '13. Phone and phone with different values', async () => {
    const w = await World.start();
    const started = Date.now();
    const [refused, same] = await w.session({}, async (s) => [
      await s.call('phone_lookup', { Phone: '5550105001', phone: '5550105002' }),
      await s.call('phone_lookup', { Phone: '5550105001', phone: '(555) 010-5001' }),
    ]);
    return w.measure(started, firstLine(refused).slice(0, 60), {
      refused: refused.isError === true,
      refusedNamesBoth: /given twice with different values \(as Phone and as phone\)/.test(text(refused)),
      sameAccepted: same.isError !== true,
    });
  }),

  scenario('mcp-journal-once', '13. twenty different questions at once: journal lines', async () => {
    const w = await World.start();
    const started = Date.now();
    await w.session({}, (s) =>
      Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s.call('phone_lookup', { Phone: `55501040${String(i).padStart(2, '0')}` }),
        ),
      ),
    );
    const keys = lines(w.cache).map((l) => (JSON.parse(l) as { key: string }).key);
    return w.measure(started, `${keys.length} lines for 20 answers`, { distinctKeys: new Set(keys).size });
  }),
];
