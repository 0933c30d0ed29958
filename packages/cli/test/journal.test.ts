// The answer journal and the run's files (issue 8, item 6): unreadable lines are skipped and
// counted, an answer is durable before its row counts as done, a failed write keeps the answer,
// --cache never names --in or --out, locks that dead or zombie processes do not hold, and the cache
// namespace is the normalised origin.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  acquireLock,
  isRunning,
  legacyNamespaces,
  cacheNamespace as namespaceFor,
  normaliseBase,
  startTimeOf,
} from '@enrich/bulk';
import { getOperation } from '@enrich/core';
import type { SandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AnswerStore, rescuePathFor } from '../src/answer-store.js';
import { CACHE_FILE } from '../src/main.js';
import { phone, runCli, sandboxEnv, startServer, tempDir, writeCsv } from './helpers.js';

let server: SandboxServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startServer();
  env = sandboxEnv(server);
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.sandbox.reset();
  server.sandbox.configure({ latencyMs: 0, faultRate: 0 });
});

const record = { kind: 'no-match', status: 204 } as const;
const line = (key: string, ns = 'test') =>
  JSON.stringify({ v: 1, ns, key, at: Date.now(), outcome: { kind: 'no-match', status: 204 } });

describe('reading the journal', () => {
  it('skips and counts every unreadable line (null, wrong shape, torn, garbage); never fatal', () => {
    const dir = tempDir();
    const path = join(dir, 'cache.jsonl');
    writeFileSync(
      path,
      [
        line('good-1'),
        'null',
        '[]',
        '42',
        '{"v":1}',
        JSON.stringify({ v: 1, ns: 'test', key: 'k', at: 1, outcome: null }),
        JSON.stringify({ v: 1, ns: 'test', key: 'k', at: 1, outcome: { kind: 'record', record: null } }),
        'not json at all',
        '\u0000\u0001binary',
        line('good-2'),
        line('other-service', 'elsewhere'),
        line('good-3').slice(0, 30), // torn: the process died mid-write
      ].join('\n'),
    );
    const store = AnswerStore.open({ path, namespace: 'test', maxAgeMs: Number.POSITIVE_INFINITY });
    try {
      expect(store.unreadableLines).toBe(9);
      expect(store.count).toBe(2);
      expect(store.get('good-1')).toEqual(record);
      expect(store.get('other-service')).toBeUndefined();
    } finally {
      store.close();
    }
  });

  it('a run over a journal holding a null line pays only for what the journal lacks, and says what it skipped', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [phone(2)]]);
    const args = ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json', '--quiet'];
    expect((await runCli(args, { env, cwd: dir })).code).toBe(0);
    const cache = join(dir, CACHE_FILE);
    const [first] = readFileSync(cache, 'utf8').split('\n');
    writeFileSync(cache, `null\n${first}\n{"v":1,"ns":"sandbox"}\ngarbage\n`);
    const ran = await runCli(args, { env, cwd: dir });
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({
      fromCache: 1,
      transactions: 1,
      ok: 2,
      unreadableCacheLines: 3,
    });
    expect(ran.stderr).toMatch(/3 lines of the answer cache could not be read .* skipped/);
    expect(server.sandbox.transactions()).toBe(3);
  });
});

describe('durable before done', () => {
  it('put() resolves only after the line is synced, and one sync covers every answer written meanwhile', async () => {
    const dir = tempDir();
    let release: () => void = () => undefined;
    const held: Promise<void>[] = [];
    const store = AnswerStore.open({
      path: join(dir, 'c.jsonl'),
      namespace: 'test',
      maxAgeMs: Number.POSITIVE_INFINITY,
      syncFile: () => {
        const p = new Promise<void>((resolve) => {
          release = resolve;
        });
        held.push(p);
        return p;
      },
    });
    try {
      let done = 0;
      const puts = Array.from({ length: 5 }, (_, i) => store.put(`k${i}`, record).then((ok) => ok && done++));
      await new Promise((r) => setTimeout(r, 20));
      // Written (a kill now would keep them), but not durable: no row may count as done yet.
      expect(readFileSync(join(dir, 'c.jsonl'), 'utf8').trim().split('\n')).toHaveLength(5);
      expect(done).toBe(0);
      release();
      await new Promise((r) => setTimeout(r, 20));
      // The first sync started with the first answer; the other four share the second.
      expect(done).toBe(1);
      release();
      await Promise.all(puts);
      expect(done).toBe(5);
      expect(store.syncs).toBe(2);
    } finally {
      store.close();
    }
  });

  it('syncs at most once per interval, and at once when syncSoon() says no answer is on the way', async () => {
    const store = AnswerStore.open({
      path: join(tempDir(), 'c.jsonl'),
      namespace: 'test',
      maxAgeMs: Number.POSITIVE_INFINITY,
      syncIntervalMs: 60_000,
    });
    try {
      await store.put('k0', record);
      let second = false;
      const put = store.put('k1', record).then((ok) => {
        second = ok;
      });
      await new Promise((r) => setTimeout(r, 50));
      // The second answer waits out the interval after the first sync.
      expect(second).toBe(false);
      store.syncSoon();
      await put;
      expect(second).toBe(true);
      expect(store.syncs).toBe(2);
    } finally {
      store.close();
    }
  });

  it('syncSoon() during a sync: the sync after it does not wait out the interval', async () => {
    let release: () => void = () => undefined;
    const store = AnswerStore.open({
      path: join(tempDir(), 'c.jsonl'),
      namespace: 'test',
      maxAgeMs: Number.POSITIVE_INFINITY,
      syncIntervalMs: 60_000,
      syncFile: () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    });
    try {
      const first = store.put('k0', record);
      // The last answer arrives while the first sync is under way; none is on the way after it.
      const last = store.put('k1', record);
      store.syncSoon();
      release();
      await first;
      await new Promise((r) => setTimeout(r, 20));
      release();
      expect(await last).toBe(true);
      expect(store.syncs).toBe(2);
    } finally {
      store.close();
    }
  });

  it('a failed sync keeps the answers in memory; saveUnsaved puts them in a rescue file that the next open imports', async () => {
    const dir = tempDir();
    const rescueDir = tempDir();
    const path = join(dir, 'c.jsonl');
    const enospc = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    const store = AnswerStore.open({
      path,
      namespace: 'test',
      maxAgeMs: Number.POSITIVE_INFINITY,
      rescueDir,
      syncFile: () => Promise.reject(enospc),
    });
    expect(await store.put('paid-1', record)).toBe(false);
    expect(await store.put('paid-2', record)).toBe(false);
    expect(store.unsavedCount).toBe(2);
    // Still answerable in this run, from memory.
    expect(store.get('paid-2')).toEqual(record);
    const report = store.saveUnsaved();
    // The journal's own fd still accepts the lines (the failure was the injected sync).
    expect(report).toMatchObject({ count: 2, where: 'journal', reason: 'the disk is full (ENOSPC)' });
    store.close();
    const reopened = AnswerStore.open({
      path,
      namespace: 'test',
      maxAgeMs: Number.POSITIVE_INFINITY,
      rescueDir,
    });
    expect(reopened.has('paid-1') && reopened.has('paid-2')).toBe(true);
    reopened.close();

    // A rescue file (as a run on a full disk leaves it) is imported into the journal, then deleted.
    const rescue = rescuePathFor(path, rescueDir);
    writeFileSync(rescue, `${line('rescued-1')}\n${line('rescued-2')}\nnull\n`);
    const dry = AnswerStore.open({
      path,
      namespace: 'test',
      maxAgeMs: Number.POSITIVE_INFINITY,
      rescueDir,
      readOnly: true,
    });
    expect(dry.has('rescued-1')).toBe(true);
    dry.close();
    expect(existsSync(rescue)).toBe(true);
    const importing = AnswerStore.open({
      path,
      namespace: 'test',
      maxAgeMs: Number.POSITIVE_INFINITY,
      rescueDir,
    });
    expect(importing.imported).toBe(2);
    importing.close();
    expect(existsSync(rescue)).toBe(false);
    expect(readFileSync(path, 'utf8')).toContain('"key":"rescued-2"');
  });
});

describe('the three files of a run', () => {
  it('refuses --cache equal to --in or --out, also through a link or another spelling; nothing is sent or touched', async () => {
    const dir = tempDir();
    const input = writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    const before = readFileSync(input);
    symlinkSync(input, join(dir, 'link.csv'));
    for (const args of [
      ['--in', 'in.csv', '--cache', 'in.csv'],
      ['--in', 'in.csv', '--cache', './sub/../in.csv'],
      ['--in', 'in.csv', '--cache', 'link.csv'],
      ['--in', 'in.csv', '--out', 'o.csv', '--cache', 'o.csv'],
      ['--in', 'in.csv', '--out', 'link.csv'],
    ]) {
      const ran = await runCli(['phone-lookup', ...args], { env, cwd: dir });
      expect(ran.code, args.join(' ')).toBe(2);
      expect(ran.stderr).toMatch(/name the same file/);
    }
    expect(readFileSync(input).equals(before)).toBe(true);
    expect(server.sandbox.requests()).toBe(0);
  });
});

describe('locks', () => {
  const startOf = (pid: number) => startTimeOf(pid) ?? null;

  it('refuses a run while a live process holds the cache or the output', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    const holder = JSON.stringify({ pid: process.ppid, start: startOf(process.ppid) });
    writeFileSync(join(dir, 'o.csv.lock'), holder);
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'o.csv', '--cache', 'own.jsonl'], {
      env,
      cwd: dir,
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(
      new RegExp(`Another enrich run \\(process ${process.ppid}\\) is using the output`),
    );
    expect(server.sandbox.requests()).toBe(0);
  });

  it('takes over a lock whose pid now belongs to another process (its start time differs)', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    writeFileSync(join(dir, `${CACHE_FILE}.lock`), JSON.stringify({ pid: process.ppid, start: '1' }));
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'o.csv'], { env, cwd: dir });
    expect(ran.code).toBe(0);
    expect(existsSync(join(dir, `${CACHE_FILE}.lock`))).toBe(false);
    expect(existsSync(join(dir, 'o.csv.lock'))).toBe(false);
  });

  it('takes over a lock held by a zombie (dead, not yet reaped: kill(pid, 0) still succeeds)', async () => {
    if (!existsSync('/proc/self/stat')) return;
    // sh starts a short sleep in the background, then becomes a long sleep that never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 30'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const zombie = Number(
        await new Promise<string>((resolve) => parent.stdout?.once('data', (d) => resolve(String(d)))),
      );
      const start = startTimeOf(zombie);
      await new Promise((r) => setTimeout(r, 400));
      expect(readFileSync(`/proc/${zombie}/stat`, 'utf8')).toMatch(/\) Z /);
      process.kill(zombie, 0); // does not throw: the pid still exists
      expect(isRunning({ pid: zombie, start })).toBe(false);
      const dir = tempDir();
      writeFileSync(join(dir, 'cache.jsonl.lock'), JSON.stringify({ pid: zombie, start }));
      const lock = acquireLock(join(dir, 'cache.jsonl'), 'answer cache');
      expect(JSON.parse(readFileSync(lock.path, 'utf8')).pid).toBe(process.pid);
      lock.release();
      expect(existsSync(lock.path)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});

describe('the cache namespace', () => {
  it('is the normalised origin: scheme, lower-case host, no default port, no trailing slash', () => {
    expect(normaliseBase('https://API.Example.COM:443/')).toBe('https://api.example.com');
    expect(normaliseBase('https://api.example.com')).toBe('https://api.example.com');
    expect(normaliseBase('http://127.0.0.1:80')).toBe('http://127.0.0.1');
    expect(normaliseBase('https://api.example.com:8443/prod/')).toBe('https://api.example.com:8443/prod');
    const op = getOperation('phone-lookup');
    const a = { baseUrl: 'https://x.io', baseUrlV3: 'https://V3.Example.com:443/', sandbox: false };
    expect(namespaceFor(op, a)).toBe('https://v3.example.com');
    expect(legacyNamespaces(op, a)).toEqual(['https://V3.Example.com:443/v3/lookup/phone']);
  });

  it('answers journaled under another spelling of the same base, or by an earlier version, are reused', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [phone(2)]]);
    const base = server.url;
    const args = ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json', '--quiet'];
    const first = await runCli(args, { env: { ...env, ENRICH_BASE_URL_V3: `${base}/` }, cwd: dir });
    expect(JSON.parse(first.stdout)).toMatchObject({ transactions: 2 });
    const again = await runCli(args, { env: { ...env, ENRICH_BASE_URL_V3: base }, cwd: dir });
    expect(JSON.parse(again.stdout)).toMatchObject({ fromCache: 2, transactions: 0 });
    // A journal written by the previous version, filed under the operation's URL.
    const cache = join(dir, CACHE_FILE);
    const old = readFileSync(cache, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.stringify({ ...JSON.parse(l), ns: `${base}/v3/lookup/phone` }));
    writeFileSync(cache, `${old.join('\n')}\n`);
    const legacy = await runCli(args, { env, cwd: dir });
    expect(JSON.parse(legacy.stdout)).toMatchObject({ fromCache: 2, transactions: 0 });
    expect(server.sandbox.transactions()).toBe(2);
  });
});
