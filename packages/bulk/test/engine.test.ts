// The engine as a client calls it (the CLI and the extension): plan, then run, against the sandbox
// over real HTTP on 127.0.0.1.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { outputColumns } from '@enrich/core';
import { startSandboxServer } from '@enrich/sandbox';
import { describe, expect, it } from 'vitest';
import {
  type BulkOptions,
  type BulkProgress,
  CACHE_FILE,
  defaultOutputPath,
  planBulk,
  readHeader,
  runBulk,
} from '../src/index.js';
import { useSandbox } from './fixtures.js';
import { op, phone, sandboxRun } from './sandbox-run.js';

const at = useSandbox();

function options(inPath: string): BulkOptions {
  return sandboxRun(at.server, { inPath, outPath: defaultOutputPath(inPath, op) });
}

// 70 rows: 20 distinct phones (each three times, in three spellings), 2 blank, 3 with a name and no
// phone (invalid: the phone is missing), 5 invalid.
function leads(): string {
  const lines = ['name,phone'];
  for (let i = 0; i < 60; i++) {
    const p = phone(i % 20);
    const spelled = [p, `(${p.slice(0, 3)}) ${p.slice(3, 6)}-${p.slice(6)}`, `+1 ${p}`][i % 3];
    lines.push(`Lead ${i},${spelled}`);
  }
  for (let i = 0; i < 5; i++) lines.push(i < 2 ? ',' : `No phone ${i},`);
  for (let i = 0; i < 5; i++) lines.push(`Short ${i},12345`);
  return `${lines.join('\n')}\n`;
}

describe('planBulk and runBulk', () => {
  it('the plan states what the run then spends; results are counted by kind; output beside the input', async () => {
    const { dir, server } = at;
    const inPath = join(dir, 'leads.csv');
    writeFileSync(inPath, leads());
    const o = options(inPath);
    expect(o.outPath).toBe(join(dir, 'leads.phone-lookup.csv'));
    expect(o.cachePath).toBe(join(dir, CACHE_FILE));
    expect(await readHeader(inPath)).toEqual(['name', 'phone']);

    const plan = await planBulk({ ...o });
    expect(plan).toMatchObject({
      rows: 70,
      distinct: 20,
      cached: 0,
      blank: 2,
      invalid: 10,
      transactions: 20,
    });
    expect(plan.mapping).toEqual({ Phone: 'phone' });

    const seen: BulkProgress[] = [];
    const summary = await runBulk({ ...o, onProgress: (p) => seen.push(p), progressEveryMs: 5 });
    expect(summary.completed).toBe(true);
    expect(summary.transactions).toBe(plan.transactions);
    expect(server.sandbox.stats().transactions).toBe(20);
    expect(summary).toMatchObject({ rows: 70, distinct: 20, invalid: 10, blank: 2, errors: 0, notSent: 0 });
    expect(summary.ok + summary.noMatch).toBe(60);
    // The last progress report is the final count.
    expect(seen.at(-1)).toMatchObject({ rows: 70, written: 70, transactions: 20 });
    const output = readFileSync(o.outPath, 'utf8').split('\n');
    expect(output[0]).toBe(['name', 'phone', ...outputColumns(op), 'status'].join(','));
    expect(output).toHaveLength(72); // header, 70 rows, and the final newline
    expect(output[1]?.startsWith('Lead 0,5551000000,')).toBe(true);
    expect(output[61]).toMatch(/^,+"?invalid: blank row/);
    expect(output[63]).toMatch(
      /^No phone 2,,+invalid: no Phone in this row \(Phone Lookup: Phone is required\)$/,
    );
    expect(output[66]).toMatch(/^Short 0,12345,+"?invalid: /);

    // Again: everything from the cache, nothing spent, the same bytes.
    const first = readFileSync(o.outPath);
    const again = await runBulk(o);
    expect(again).toMatchObject({ transactions: 0, fromCache: 20, completed: true });
    expect(readFileSync(o.outPath).equals(first)).toBe(true);
    expect((await planBulk(o)).transactions).toBe(0);
  });

  it('a signal already aborted sends nothing and writes no output', async () => {
    const { dir, server } = at;
    const inPath = join(dir, 'leads.csv');
    writeFileSync(inPath, leads());
    const summary = await runBulk({ ...options(inPath), signal: AbortSignal.abort() });
    expect(summary.completed).toBe(false);
    expect(server.sandbox.stats().transactions).toBe(0);
    expect(() => readFileSync(defaultOutputPath(inPath, op))).toThrow();
  });

  it('a budget stops sending: the rows not sent have the not-sent kind, counted apart from errors', async () => {
    const { dir } = at;
    const inPath = join(dir, 'leads.csv');
    writeFileSync(inPath, leads());
    const o = options(inPath);
    const summary = await runBulk({ ...o, maxTransactions: 5, concurrency: 1 });
    expect(summary.transactions).toBe(5);
    expect(summary.stopped).toBe('budget');
    expect(summary.notSent).toBe(45); // 15 phones x 3 rows
    expect(summary.errors).toBe(0);
  });

  it('rows past the window wait on disk and come out in order: the same bytes as with a window that holds them all', async () => {
    const { dir } = at;
    const extra = await startSandboxServer({ host: '127.0.0.1', port: 0, misbehave: ['extra-fields'] });
    try {
      extra.sandbox.configure({ latencyMs: 15 });
      const inPath = join(dir, 'leads.csv');
      writeFileSync(inPath, leads());
      const base = options(inPath);
      const run = (name: string, windowRows: number | undefined) =>
        runBulk({
          ...base,
          bases: { baseUrl: extra.url, baseUrlV3: extra.url, sandbox: true },
          concurrency: 3,
          outPath: join(dir, `${name}.csv`),
          cachePath: join(dir, `${name}.jsonl`),
          allExtras: true,
          ...(windowRows ? { windowRows } : {}),
        });
      const small = await run('small', 2);
      const large = await run('large', undefined);
      expect(small.completed).toBe(true);
      expect(small.transactions).toBe(20);
      // A fixed number is that many at a time: never more, and not fewer (20 requests of 15 ms each).
      expect(extra.sandbox.stats().peakInService).toBe(3);
      expect(small.extraColumns.length).toBeGreaterThan(0);
      // Times differ from run to run: how long it took, and the pace it reached.
      expect({ ...small, output: '', cache: '', elapsedMs: 0, pace: undefined }).toEqual({
        ...large,
        output: '',
        cache: '',
        elapsedMs: 0,
        pace: undefined,
      });
      expect(readFileSync(join(dir, 'small.csv'), 'utf8')).toBe(readFileSync(join(dir, 'large.csv'), 'utf8'));
      expect(existsSync(join(dir, 'small.csv.spill'))).toBe(false);
    } finally {
      await extra.close();
    }
  });
});
