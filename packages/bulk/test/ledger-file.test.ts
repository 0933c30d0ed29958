// The spend ledger on disk: where it is on each platform, appends from several processes at once
// that lose and glue no line, torn lines skipped, a recorder that batches and never fails a run, and
// the engine's hook that feeds it.
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LedgerEntry, readLedger } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import {
  BulkError,
  ClientLedger,
  LedgerFile,
  ledgerPath,
  runBulk,
  SpendRecorder,
  spendOrigin,
} from '../src/index.js';
import { useSandboxServer, useTempDir } from './fixtures.js';
import { op, phone, sandboxRun } from './sandbox-run.js';

const at = useTempDir();

const entry = (over: Partial<LedgerEntry> = {}): LedgerEntry => ({
  v: 1,
  at: '2026-11-25T10:00:00.000Z',
  operation: 'phone-lookup',
  origin: 'https://api.tdg1.io',
  client: 'cli',
  run: 'run-1',
  count: 1,
  ...over,
});

describe('ledgerPath', () => {
  it.each([
    ['linux', {}, '/home/jane/.local/share/enrich/ledger.jsonl'],
    ['linux', { XDG_DATA_HOME: '/data/jane' }, '/data/jane/enrich/ledger.jsonl'],
    ['linux', { XDG_DATA_HOME: '' }, '/home/jane/.local/share/enrich/ledger.jsonl'],
    ['freebsd', {}, '/home/jane/.local/share/enrich/ledger.jsonl'],
    ['darwin', { XDG_DATA_HOME: '/data/jane' }, '/home/jane/Library/Application Support/enrich/ledger.jsonl'],
    ['linux', { ENRICH_LEDGER: '/tmp/l.jsonl', XDG_DATA_HOME: '/data' }, '/tmp/l.jsonl'],
    ['darwin', { ENRICH_LEDGER: '/tmp/l.jsonl' }, '/tmp/l.jsonl'],
    ['linux', { ENRICH_LEDGER: '  ' }, '/home/jane/.local/share/enrich/ledger.jsonl'],
  ] as const)('%s with %j: %s', (platform, env, path) => {
    expect(ledgerPath(env, platform, '/home/jane')).toBe(path);
  });

  it.each([
    [
      { LOCALAPPDATA: 'C:\\Users\\jane\\AppData\\Local' },
      'C:\\Users\\jane\\AppData\\Local\\enrich\\ledger.jsonl',
    ],
    [{}, 'C:\\Users\\jane\\AppData\\Local\\enrich\\ledger.jsonl'],
    [{ ENRICH_LEDGER: 'D:\\ledger.jsonl' }, 'D:\\ledger.jsonl'],
  ])('win32 with %j: %s', (env, path) => {
    expect(ledgerPath(env, 'win32', 'C:\\Users\\jane')).toBe(path);
  });
});

describe('spendOrigin', () => {
  it('is the origin of the base the operation uses; the embedded sandbox without its random port', () => {
    const bases = {
      baseUrl: 'https://V2.example.com/api/',
      baseUrlV3: 'https://v3.example.com:8443',
      sandbox: false,
    };
    expect(spendOrigin(op, bases)).toBe('https://v3.example.com:8443');
    expect(spendOrigin({ ...op, version: 'v2' }, bases)).toBe('https://v2.example.com');
    expect(
      spendOrigin(op, {
        baseUrl: 'http://127.0.0.1:40123',
        baseUrlV3: 'http://127.0.0.1:40123',
        sandbox: true,
      }),
    ).toBe('http://127.0.0.1');
  });
});

describe('LedgerFile', () => {
  it('creates its folder, appends lines and reads them back; a missing file is an empty ledger', () => {
    const { dir } = at;
    const ledger = new LedgerFile(join(dir, 'a', 'b', 'ledger.jsonl'));
    expect(ledger.read()).toEqual({ entries: [], skipped: 0 });
    ledger.append(entry());
    ledger.append(entry({ count: 2, file: 'leads.csv' }));
    expect(ledger.read()).toEqual({ entries: [entry(), entry({ count: 2, file: 'leads.csv' })], skipped: 0 });
  });

  it('never glues a line to a torn one: the next append starts on a line of its own', () => {
    const { dir } = at;
    const path = join(dir, 'ledger.jsonl');
    const ledger = new LedgerFile(path);
    ledger.append(entry());
    // A crash mid-write left half a line, without its line break.
    appendFileSync(path, JSON.stringify(entry({ count: 9 })).slice(0, 30));
    ledger.append(entry({ count: 2 }));
    ledger.append(entry({ count: 3 }));
    const read = ledger.read();
    expect(read.skipped).toBe(1);
    expect(read.entries.map((e) => e.count)).toEqual([1, 2, 3]);
  });

  it('skips and counts torn and garbage lines in the middle, and reads the lines after them', () => {
    const { dir } = at;
    const path = join(dir, 'ledger.jsonl');
    const line = (n: number) => `${JSON.stringify(entry({ count: n }))}\n`;
    writeFileSync(
      path,
      `${line(1)}{"v":1,"at":"2026-11-25T1\n\u0000\u0000\u0000\n${line(2)}not json\n${line(3)}`,
    );
    const read = new LedgerFile(path).read();
    expect(read.skipped).toBe(3);
    expect(read.entries.map((e) => e.count)).toEqual([1, 2, 3]);
  });

  it('four processes appending 2,000 lines each at once: every line read back, none lost, none glued', async () => {
    const { dir } = at;
    const path = join(dir, 'ledger.jsonl');
    const lines = 2000;
    const runs = ['p1', 'p2', 'p3', 'p4'];
    const script = join(import.meta.dirname, 'ledger-appender.mjs');
    // Loading tsx takes a while: every process waits for the same moment, then appends.
    const startAt = String(Date.now() + 2000);
    await Promise.all(
      runs.map(
        (run) =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, [script, path, run, String(lines), startAt], {
              stdio: ['ignore', 'ignore', 'pipe'],
            });
            let err = '';
            child.stderr.on('data', (d) => {
              err += String(d);
            });
            child.on('error', reject);
            child.on('close', (code) =>
              code === 0 ? resolve() : reject(new Error(`${run} exited ${code}: ${err}`)),
            );
          }),
      ),
    );
    const text = readFileSync(path, 'utf8');
    expect(text.split('\n').filter((l) => l !== '')).toHaveLength(runs.length * lines);
    const read = readLedger(text);
    expect(read.skipped).toBe(0);
    // They did write at the same time: the file switches from one process's lines to another's.
    const order = read.entries.map((e) => e.run);
    expect(order.filter((run, i) => i > 0 && run !== order[i - 1]).length).toBeGreaterThan(runs.length);
    for (const run of runs) {
      const counts = read.entries.filter((e) => e.run === run).map((e) => e.count);
      // Each process's lines, all of them, in the order it wrote them.
      expect(counts).toEqual(Array.from({ length: lines }, (_, i) => i + 1));
    }
  }, 60_000);
});

describe('SpendRecorder', () => {
  it('writes what it counted in one line on close, with the run id and only the base name of the file', () => {
    const { dir } = at;
    const ledger = new LedgerFile(join(dir, 'ledger.jsonl'));
    const recorder = new SpendRecorder({
      ledger,
      operation: 'email-verify',
      origin: 'http://127.0.0.1',
      client: 'cli',
      run: 'r-42',
      file: '/home/jane/private/leads.csv',
      intervalMs: 60_000,
    });
    for (let i = 0; i < 100_000; i++) recorder.add(1);
    expect(ledger.read().entries).toEqual([]);
    recorder.close();
    const { entries } = ledger.read();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      operation: 'email-verify',
      client: 'cli',
      run: 'r-42',
      file: 'leads.csv',
      count: 100_000,
    });
    expect(recorder.total).toBe(100_000);
  });

  it('writes every interval without waiting for close, and a random run id by default', async () => {
    const { dir } = at;
    const ledger = new LedgerFile(join(dir, 'ledger.jsonl'));
    const recorder = new SpendRecorder({
      ledger,
      operation: 'phone-lookup',
      origin: 'http://127.0.0.1',
      client: 'mcp',
      intervalMs: 20,
    });
    recorder.add(2);
    recorder.add(3);
    await new Promise((r) => setTimeout(r, 120));
    const first = ledger.read().entries;
    expect(first.map((e) => e.count)).toEqual([5]);
    recorder.add(1);
    recorder.close();
    recorder.add(4); // after close: written at once
    const all = ledger.read().entries;
    expect(all.map((e) => e.count)).toEqual([5, 1, 4]);
    expect(new Set(all.map((e) => e.run)).size).toBe(1);
    expect(all[0]?.run).toMatch(/^[0-9a-f-]{36}$/);
    expect(all[0]?.file).toBeUndefined();
  });

  it('never lets a batch span two UTC days', () => {
    const { dir } = at;
    const ledger = new LedgerFile(join(dir, 'ledger.jsonl'));
    let now = new Date('2026-11-30T23:59:59.000Z');
    const recorder = new SpendRecorder({
      ledger,
      operation: 'phone-lookup',
      origin: 'http://127.0.0.1',
      client: 'cli',
      intervalMs: 60_000,
      now: () => now,
    });
    recorder.add(3);
    now = new Date('2026-12-01T00:00:01.000Z');
    recorder.add(2);
    recorder.close();
    expect(ledger.read().entries.map((e) => [e.at.slice(0, 10), e.count])).toEqual([
      ['2026-11-30', 3],
      ['2026-12-01', 2],
    ]);
  });

  it('reports an unwritable ledger once, never throws, and writes what it kept once it can', () => {
    const { dir } = at;
    const blocker = join(dir, 'not-a-folder');
    writeFileSync(blocker, 'a file where the ledger folder should be');
    const errors: Error[] = [];
    const recorder = new SpendRecorder({
      ledger: new LedgerFile(join(blocker, 'enrich', 'ledger.jsonl')),
      operation: 'phone-lookup',
      origin: 'http://127.0.0.1',
      client: 'cli',
      intervalMs: 60_000,
      onError: (error) => errors.push(error),
    });
    expect(() => {
      recorder.add(1);
      recorder.close();
      recorder.add(1);
      recorder.add(1);
      recorder.close();
    }).not.toThrow();
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(/ENOTDIR|EEXIST/);
    // The folder is mended: the transactions it could not write are written on the next try.
    rmSync(blocker);
    recorder.add(1);
    expect(
      new LedgerFile(join(blocker, 'enrich', 'ledger.jsonl')).read().entries.map((e) => e.count),
    ).toEqual([4]);
  });
});

describe('ClientLedger', () => {
  const bases = { baseUrl: 'https://api.tdg1.io', baseUrlV3: 'https://api.tdg1.io', sandbox: false };

  it('flush() writes what its open recorders counted, at once; they batch again after, and a closed one is left alone', () => {
    const file = new LedgerFile(join(at.dir, 'ledger.jsonl'));
    const client = new ClientLedger(file, 'cli', () => undefined);
    const a = client.recorder(op, bases, { file: 'a.csv', run: 'a' });
    const b = client.recorder(op, bases, { file: 'b.csv', run: 'b' });
    const done = client.recorder(op, bases, { run: 'done' });
    done.add(1);
    done.close();
    a.add(3);
    b.add(2);
    // Batched: nothing written yet (the interval is 2 s).
    expect(file.read().entries).toHaveLength(1);
    client.flush();
    const counts = () => file.read().entries.map((e) => [e.run, e.count]);
    expect(counts()).toEqual([
      ['done', 1],
      ['a', 3],
      ['b', 2],
    ]);
    a.add(4);
    expect(counts()).toHaveLength(3);
    a.close();
    b.close();
    client.flush();
    expect(counts()).toEqual([
      ['done', 1],
      ['a', 3],
      ['b', 2],
      ['a', 4],
    ]);
  });
});

describe("the engine's ledger and onPaid hook", () => {
  const sandbox = useSandboxServer();

  it("records a run's paid transactions in the client's ledger, the input by its base name, none from the cache", async () => {
    const { dir } = at;
    const inPath = join(dir, 'leads.csv');
    writeFileSync(inPath, `phone\n${Array.from({ length: 12 }, (_, i) => phone(i % 6)).join('\n')}\n`);
    const file = new LedgerFile(join(dir, 'ledger.jsonl'));
    const ledger = new ClientLedger(file, 'vscode', () => undefined);
    const options = sandboxRun(sandbox.server, { inPath, outPath: join(dir, 'out.csv') }, { ledger });
    const summary = await runBulk(options);
    expect(summary.transactions).toBe(6);
    await runBulk(options);
    const entries = file.read().entries;
    expect(entries.reduce((sum, e) => sum + e.count, 0)).toBe(6);
    expect(entries.map((e) => [e.client, e.file, e.origin])).toEqual([
      ['vscode', 'leads.csv', 'http://127.0.0.1'],
    ]);
    // Standard input is named as the client says (the CLI's "-"); the ledger is never the output.
    writeFileSync(inPath, `phone\n${phone(7)}\n`);
    await runBulk({ ...options, ledgerName: '-' });
    expect(file.read().entries.at(-1)).toMatchObject({ file: '-', count: 1 });
    // (A ledger not written yet: known by its path alone, not by what it holds.)
    const unwritten = new ClientLedger(new LedgerFile(join(dir, 'new-ledger.jsonl')), 'cli', () => undefined);
    const over = { ...options, ledger: unwritten, outPath: unwritten.file.path, force: true };
    await expect(runBulk(over)).rejects.toThrow(BulkError);
  });

  it('is told of every paid transaction the run counts, and of none answered from the cache', async () => {
    const { dir } = at;
    const { server } = sandbox;
    const inPath = join(dir, 'in.csv');
    // 30 distinct phones, each twice, a blank and an invalid row: 30 paid.
    const rows = Array.from({ length: 60 }, (_, i) => phone(i % 30));
    writeFileSync(inPath, `phone\n${rows.join('\n')}\n\n123\n`);
    const options = sandboxRun(server, { inPath, outPath: join(dir, 'out.csv') });
    let told = 0;
    const summary = await runBulk({ ...options, onPaid: (n) => (told += n) });
    expect(summary.transactions).toBe(30);
    expect(told).toBe(30);
    let again = 0;
    const rerun = await runBulk({ ...options, onPaid: (n) => (again += n) });
    expect(rerun.transactions).toBe(0);
    expect(again).toBe(0);
  });
});
