// One writer per file (file-lock.ts): a run refuses an output or a cache that a live process holds,
// before anything is sent, and takes over a lock whose holder is gone (its pid now another process's,
// or a zombie's).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BulkError } from '../src/run/bulk-error.js';
import { runBulk } from '../src/run/run-bulk.js';
import { AnswerStore } from '../src/store/answer-store.js';
import {
  acquireLock,
  CacheInUse,
  FileInUse,
  isRunning,
  startTimeOf,
  whileInUse,
} from '../src/store/file-lock.js';
import { CACHE_FILE } from '../src/store/files.js';
import { tempDir, useSandbox, writeCsv } from './fixtures.js';
import { phone, sandboxRun } from './sandbox-run.js';

const at = useSandbox();

describe('locks', () => {
  const startOf = (pid: number) => startTimeOf(pid) ?? null;

  it('refuses a run while a live process holds the cache or the output', async () => {
    const { dir, server } = at;
    const inPath = writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    const holder = JSON.stringify({ pid: process.ppid, start: startOf(process.ppid) });
    writeFileSync(join(dir, 'o.csv.lock'), holder);
    const refused = await runBulk(
      sandboxRun(server, { inPath, outPath: join(dir, 'o.csv') }, { cachePath: join(dir, 'own.jsonl') }),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(FileInUse);
    // A busy output is not a busy answer cache: clients tell them apart by class.
    expect(refused).not.toBeInstanceOf(CacheInUse);
    expect(refused).toMatchObject({ what: 'output', holder: process.ppid, path: join(dir, 'o.csv') });
    expect((refused as BulkError).message).toMatch(
      new RegExp(`Another enrich run \\(process ${process.ppid}\\) is using the output`),
    );
    expect(server.sandbox.requests()).toBe(0);
    // Nothing of the output touched: the holder's lock as it was, no output, no partial output.
    expect(readFileSync(join(dir, 'o.csv.lock'), 'utf8')).toBe(holder);
    expect(existsSync(join(dir, 'o.csv'))).toBe(false);
    expect(existsSync(join(dir, 'o.csv.partial'))).toBe(false);
    // The cache, opened first, is let go.
    expect(existsSync(join(dir, 'own.jsonl.lock'))).toBe(false);
  });

  it('a busy answer cache is a CacheInUse, known by its class whatever its words (a run, a store opened)', async () => {
    const { dir, server } = at;
    const inPath = writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    const cachePath = join(dir, 'held.jsonl');
    writeFileSync(`${cachePath}.lock`, JSON.stringify({ pid: process.ppid, start: startOf(process.ppid) }));
    const refused = await runBulk(
      sandboxRun(server, { inPath, outPath: join(dir, 'o.csv') }, { cachePath }),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CacheInUse);
    expect(refused).toBeInstanceOf(BulkError);
    expect(refused).toMatchObject({ path: cachePath, holder: process.ppid, name: 'CacheInUse' });
    expect(server.sandbox.requests()).toBe(0);
    // Held by this process (a store open for writing): the same class.
    const mine = join(dir, 'mine.jsonl');
    const store = AnswerStore.open({ path: mine, namespace: 'sandbox', maxAgeMs: 1000 });
    try {
      expect(() => AnswerStore.open({ path: mine, namespace: 'sandbox', maxAgeMs: 1000 })).toThrow(
        CacheInUse,
      );
    } finally {
      store.close();
    }
  });

  it('refuses a second lock of a file this process holds (an MCP call during its own file run); takes a lock its pid left from before', () => {
    const dir = tempDir();
    const path = join(dir, 'answers.jsonl');
    const first = acquireLock(path, 'answer cache');
    expect(() => acquireLock(path, 'answer cache')).toThrow(
      /Another enrich run of this process is using the answer cache/,
    );
    first.release();
    const second = acquireLock(path, 'answer cache');
    second.release();
    // A lock file naming this pid that this process does not hold: an earlier process's, taken over.
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: process.pid, start: startOf(process.pid) }));
    const taken = acquireLock(path, 'answer cache');
    expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8')).pid).toBe(process.pid);
    taken.release();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('takes over a lock whose pid now belongs to another process (its start time differs)', async () => {
    const { dir, server } = at;
    const inPath = writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    writeFileSync(join(dir, `${CACHE_FILE}.lock`), JSON.stringify({ pid: process.ppid, start: '1' }));
    const summary = await runBulk(sandboxRun(server, { inPath, outPath: join(dir, 'o.csv') }));
    expect(summary.completed).toBe(true);
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

describe('waiting on a file another run holds (whileInUse)', () => {
  it('tries again while it is in use, and gets it once it is let go', async () => {
    const path = join(tempDir(), 'cache.jsonl');
    const held = acquireLock(path, 'answer cache');
    let tries = 0;
    setTimeout(() => held.release(), 300);
    const lock = await whileInUse(() => {
      tries++;
      return acquireLock(path, 'answer cache');
    }, 5000);
    lock.release();
    // Every 50 ms: about six tries in 300 ms, far from a busy loop.
    expect(tries).toBeGreaterThanOrEqual(3);
    expect(tries).toBeLessThanOrEqual(12);
  });

  it('gives up with the FileInUse once the wait is over, or when told to stop; anything else at once', async () => {
    const path = join(tempDir(), 'cache.jsonl');
    const held = acquireLock(path, 'answer cache');
    try {
      const started = Date.now();
      await expect(whileInUse(() => acquireLock(path, 'answer cache'), 200)).rejects.toBeInstanceOf(
        CacheInUse,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(200);
      let tries = 0;
      const stop = () => tries >= 2;
      await expect(
        whileInUse(
          () => {
            tries++;
            return acquireLock(path, 'answer cache');
          },
          60_000,
          stop,
        ),
      ).rejects.toBeInstanceOf(CacheInUse);
      expect(tries).toBe(2);
      let other = 0;
      await expect(
        whileInUse(() => {
          other++;
          throw new Error('not a lock');
        }, 60_000),
      ).rejects.toThrow('not a lock');
      expect(other).toBe(1);
    } finally {
      held.release();
    }
  });
});
