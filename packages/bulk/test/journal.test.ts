// The answer journal (answer-store.ts, journal-file.ts, group-commit.ts): unreadable lines are
// skipped and counted, an answer is durable before its row counts as done, and a failed write keeps
// the answer (in memory, then the journal or a rescue file the next open imports).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBulk } from '../src/run/run-bulk.js';
import { AnswerStore } from '../src/store/answer-store.js';
import { CACHE_FILE } from '../src/store/files.js';
import { rescuePathFor } from '../src/store/journal-file.js';
import { tempDir, useSandbox, writeCsv } from './fixtures.js';
import { phone, sandboxRun } from './sandbox-run.js';

const at = useSandbox();

const record = { kind: 'no-match', status: 204 } as const;
const fullRecord = { kind: 'record', status: 200, record: {}, extra: {}, mismatches: [], raw: '{}' } as const;
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
        // A record without the fields every record has (extra, mismatches, raw): not ours.
        JSON.stringify({
          v: 1,
          ns: 'test',
          key: 'k',
          at: 1,
          outcome: { kind: 'record', status: 200, record: {} },
        }),
        JSON.stringify({ v: 1, ns: 'test', key: 'full', at: 1, outcome: fullRecord }),
        'not json at all',
        '\u0000\u0001binary',
        line('good-2'),
        line('other-service', 'elsewhere'),
        line('good-3').slice(0, 30), // torn: the process died mid-write
      ].join('\n'),
    );
    const store = AnswerStore.open({ path, namespace: 'test', maxAgeMs: Number.POSITIVE_INFINITY });
    try {
      expect(store.unreadableLines).toBe(10);
      expect(store.count).toBe(3);
      expect(store.get('good-1')).toEqual(record);
      expect(store.get('full')).toEqual(fullRecord);
      expect(store.get('other-service')).toBeUndefined();
    } finally {
      store.close();
    }
  });

  it('a run over a journal holding a null line pays only for what the journal lacks, and counts what it skipped', async () => {
    const { dir, server } = at;
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [phone(2)]]);
    const options = sandboxRun(server, { inPath: join(dir, 'in.csv'), outPath: join(dir, 'out.csv') });
    expect((await runBulk(options)).completed).toBe(true);
    const cache = join(dir, CACHE_FILE);
    const [first] = readFileSync(cache, 'utf8').split('\n');
    writeFileSync(cache, `null\n${first}\n{"v":1,"ns":"sandbox"}\ngarbage\n`);
    const ran = await runBulk(options);
    expect(ran.completed).toBe(true);
    expect(ran).toMatchObject({
      fromCache: 1,
      transactions: 1,
      ok: 2,
      unreadableCacheLines: 3,
    });
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

describe('answers set aside while another process holds the cache', () => {
  it('are read by every open, moved into the journal by the next writer, once; other services stay aside', () => {
    const dir = tempDir();
    const rescueDir = tempDir();
    const path = join(dir, 'answers.jsonl');
    const holder = AnswerStore.open({
      path,
      namespace: 'test',
      maxAgeMs: Number.POSITIVE_INFINITY,
      rescueDir,
    });
    let other: ReturnType<typeof AnswerStore.setAside>;
    try {
      // The lock is held (a CLI run): another process sets its paid answers aside.
      const report = AnswerStore.setAside({ path, namespace: 'test', rescueDir }, [
        { key: 'a', outcome: record },
        { key: 'b', outcome: record },
      ]);
      expect(report).toMatchObject({ count: 2, where: 'rescue' });
      other = AnswerStore.setAside({ path, namespace: 'elsewhere', rescueDir }, [
        { key: 'c', outcome: record },
      ]);
      expect(other.where).toBe('rescue');
    } finally {
      holder.close();
    }
    const reader = AnswerStore.open({
      path,
      namespace: 'test',
      maxAgeMs: Number.POSITIVE_INFINITY,
      rescueDir,
      readOnly: true,
    });
    expect(reader.get('a')).toEqual(record);
    reader.close();

    const writer = AnswerStore.open({
      path,
      namespace: 'test',
      maxAgeMs: Number.POSITIVE_INFINITY,
      rescueDir,
    });
    expect(writer.imported).toBe(2);
    writer.close();
    const again = AnswerStore.open({
      path,
      namespace: 'test',
      maxAgeMs: Number.POSITIVE_INFINITY,
      rescueDir,
    });
    expect(again.imported).toBe(0);
    expect(again.get('b')).toEqual(record);
    again.close();
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).key)).toEqual(['a', 'b']);
    // The other service's answer waits, untouched, for a writer of that service.
    expect(existsSync(other.rescuePath as string)).toBe(true);
    const elsewhere = AnswerStore.open({
      path,
      namespace: 'elsewhere',
      maxAgeMs: Number.POSITIVE_INFINITY,
      rescueDir,
    });
    expect(elsewhere.imported).toBe(1);
    elsewhere.close();
    expect(existsSync(other.rescuePath as string)).toBe(false);
  });
});
