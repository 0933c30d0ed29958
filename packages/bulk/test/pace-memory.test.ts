// The pace of the last run, remembered per service and key (pace-memory.ts, core's
// remembered-pace.ts): against a slow sandbox a second run starts where the first ended instead of
// climbing from 8; a remembered pace too high for the service now (its capacity dropped) comes
// down; a fixed number ignores it; the key is never in the file; old entries are ignored.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MAX_CONCURRENCY, INITIAL_CONCURRENCY } from '@enrich/core';
import { DEMO_KEY } from '@enrich/sandbox';
import { describe, expect, it, vi } from 'vitest';
import { runBulk } from '../src/run/run-bulk.js';
import type { BulkSummary } from '../src/run/summary.js';
import { PACE_MAX_AGE_MS, PaceMemory } from '../src/sending/pace-memory.js';
import { SANDBOX_NAMESPACE } from '../src/store/files.js';
import { useSandbox, writeCsv } from './fixtures.js';
import { phone, sandboxRun } from './sandbox-run.js';

// Runs of several seconds each: the service is slow on purpose.
vi.setConfig({ testTimeout: 90_000 });

const at = useSandbox();

/** A run of `rows` distinct phones from `from` (none answered before), auto pace, the memory in `pacePath`. */
async function autoRun(
  name: string,
  from: number,
  rows: number,
  pacePath: string | undefined,
  trace?: { at: number; concurrency: number }[],
): Promise<BulkSummary> {
  const { dir, server } = at;
  const inPath = join(dir, `${name}.csv`);
  writeCsv(inPath, [['phone'], ...Array.from({ length: rows }, (_, i) => [phone(from + i)])]);
  const options = sandboxRun(server, { inPath, outPath: join(dir, `${name}.out.csv`) }, { pacePath });
  const started = Date.now();
  return runBulk({
    ...options,
    concurrency: 'auto',
    progressEveryMs: 100,
    onProgress: (p) => trace?.push({ at: Date.now() - started, concurrency: p.pace.concurrency }),
  });
}

describe("a slow service with no limit (800 ms): the second run starts at the first run's pace", () => {
  it('starts at 64 in flight where the first climbed from 8, and so is faster over about 10 s', async () => {
    // What each run reaches of the ceiling (64 in flight at 800 ms: 80 answers a second) is a
    // figure of the pacing bench (family g, its second run), not of this test: on a loaded machine
    // the answers a second move with the load. What is tested is what the controller did.
    at.server.sandbox.configure({ latencyMs: 800 });
    const pacePath = join(at.dir, 'cache', 'pace.json');
    const ceiling = DEFAULT_MAX_CONCURRENCY / 0.8;
    // 13 round trips of 64: 10.4 s at best.
    const firstTrace: { at: number; concurrency: number }[] = [];
    const first = await autoRun('first', 0, 832, pacePath, firstTrace);
    expect(first).toMatchObject({ ok: 832, completed: true });
    expect(first.pace?.startedFrom).toBeUndefined();
    const secondTrace: { at: number; concurrency: number }[] = [];
    const second = await autoRun('second', 10_000, 832, pacePath, secondTrace);
    expect(second).toMatchObject({ ok: 832, completed: true });
    expect(second.pace?.startedFrom).toBe(DEFAULT_MAX_CONCURRENCY);
    // The first climbed from 8 through its first round trips; the second was at 64 from its start.
    expect(firstTrace[0]?.concurrency).toBeLessThanOrEqual(2 * INITIAL_CONCURRENCY);
    expect(secondTrace[0]?.concurrency).toBe(DEFAULT_MAX_CONCURRENCY);
    // Same rows, same service, one after the other: the climb cost the first what the second did not pay.
    expect(second.elapsedMs).toBeLessThan(first.elapsedMs);
    console.log(
      `first run ${(first.pace?.answersPerSecond ?? 0) / ceiling} of the ceiling, second ${(second.pace?.answersPerSecond ?? 0) / ceiling}`,
    );
  });

  it('without a memory (no pacePath) every run climbs from the start', async () => {
    at.server.sandbox.configure({ latencyMs: 800 });
    await autoRun('first', 0, 200, undefined);
    const second = await autoRun('second', 10_000, 200, undefined);
    expect(second.pace?.startedFrom).toBeUndefined();
    expect(second.pace?.change).not.toBe('remembered');
  });
});

describe('a remembered pace too high for the service now', () => {
  it('comes down when the capacity dropped from none to 8: the queue is seen within a few round trips', async () => {
    const { server } = at;
    const pacePath = join(at.dir, 'pace.json');
    // The last run found no limit at 100 ms (64 in flight, still climbing)...
    new PaceMemory(pacePath).remember(SANDBOX_NAMESPACE, DEMO_KEY, {
      concurrency: 64,
      baselineMs: 100,
      climbing: true,
    });
    // ...and the service now serves 8 at once and queues the rest.
    server.sandbox.configure({ latencyMs: 100, capacity: 8 });
    const trace: { at: number; concurrency: number }[] = [];
    const run = await autoRun('run', 0, 1200, pacePath, trace);
    expect(run).toMatchObject({ ok: 1200, completed: true });
    expect(run.pace?.startedFrom).toBe(DEFAULT_MAX_CONCURRENCY);
    // The first round, queued behind 8 at once, is answered in about 0.8 s: the queue is seen and the
    // limit cut within two such round trips, then cut again round after round (a quarter at most
    // each, as mid-run). Without the remembered baseline, the first round's queued latency would
    // be taken for the service's own, and the limit would stay near 64 for the whole run.
    const limitAt = (ms: number) => trace.filter((t) => t.at <= ms).at(-1)?.concurrency;
    expect(limitAt(2000)).toBeLessThan(DEFAULT_MAX_CONCURRENCY);
    expect(limitAt(6000)).toBeLessThanOrEqual(DEFAULT_MAX_CONCURRENCY / 2);
    // Near the capacity at the end (the controller hovers a little above it), not holding 64 in the
    // service's queue.
    const near = 3 * 8;
    expect(run.pace?.concurrency).toBeLessThanOrEqual(near);
    // What it found is what the next run starts from.
    const kept = new PaceMemory(pacePath).recall(SANDBOX_NAMESPACE, DEMO_KEY);
    expect(kept?.concurrency).toBeLessThanOrEqual(near);
    expect(kept?.climbing).toBe(false);
  });
});

describe('what is kept, and what ignores it', () => {
  it('a fixed number ignores the memory and leaves it as it was', async () => {
    const { server, dir } = at;
    const pacePath = join(dir, 'pace.json');
    new PaceMemory(pacePath).remember(SANDBOX_NAMESPACE, DEMO_KEY, {
      concurrency: 40,
      baselineMs: 5,
      climbing: false,
    });
    const before = readFileSync(pacePath, 'utf8');
    const inPath = writeCsv(join(dir, 'in.csv'), [
      ['phone'],
      ...Array.from({ length: 50 }, (_, i) => [phone(i)]),
    ]);
    const summary = await runBulk(
      sandboxRun(server, { inPath, outPath: join(dir, 'out.csv') }, { pacePath, concurrency: 3 }),
    );
    expect(summary.pace).toMatchObject({ mode: 'fixed', concurrency: 3 });
    expect(summary.pace?.startedFrom).toBeUndefined();
    expect(readFileSync(pacePath, 'utf8')).toBe(before);
  });

  it('the key is not in the file: only a salted hash of it, beside the service', async () => {
    const { dir } = at;
    const pacePath = join(dir, 'pace.json');
    const first = await autoRun('first', 0, 300, pacePath);
    expect(first.ok).toBe(300);
    const text = readFileSync(pacePath, 'utf8');
    expect(text).not.toContain(DEMO_KEY);
    const file = JSON.parse(text);
    const names = Object.keys(file.paces);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(new RegExp(`^${SANDBOX_NAMESPACE} [0-9a-f]{64}$`));
    // Nor its plain hash, which anyone holding the key could look for: the hash is salted, and the
    // salt is the file's own (another file names the same key otherwise).
    expect(text).not.toContain(createHash('sha256').update(DEMO_KEY).digest('hex'));
    const other = join(dir, 'other.json');
    new PaceMemory(other).remember(SANDBOX_NAMESPACE, DEMO_KEY, {
      concurrency: 8,
      baselineMs: 1,
      climbing: true,
    });
    expect(Object.keys(JSON.parse(readFileSync(other, 'utf8')).paces)).not.toEqual(names);
    expect(file.paces[names[0] as string]).toMatchObject({
      concurrency: expect.any(Number),
      baselineMs: expect.any(Number),
    });
    // Another key of the same service has no pace yet.
    expect(new PaceMemory(pacePath).recall(SANDBOX_NAMESPACE, `${DEMO_KEY}x`)).toBeUndefined();
    expect(new PaceMemory(pacePath).recall(SANDBOX_NAMESPACE, DEMO_KEY)).toBeDefined();
  });

  it('ignores an entry older than 30 days, and a file that is not one of ours', () => {
    const { dir } = at;
    const pacePath = join(dir, 'pace.json');
    const now = Date.parse('2025-06-01T00:00:00Z');
    new PaceMemory(pacePath, () => now).remember('https://api.example.com', 'k', {
      concurrency: 50,
      baselineMs: 300,
      climbing: false,
    });
    expect(
      new PaceMemory(pacePath, () => now + PACE_MAX_AGE_MS).recall('https://api.example.com', 'k'),
    ).toMatchObject({
      concurrency: 50,
    });
    expect(
      new PaceMemory(pacePath, () => now + PACE_MAX_AGE_MS + 1).recall('https://api.example.com', 'k'),
    ).toBeUndefined();
    writeFileSync(pacePath, 'not json');
    expect(new PaceMemory(pacePath).recall('https://api.example.com', 'k')).toBeUndefined();
    // And a write over it starts a fresh file.
    new PaceMemory(pacePath).remember('https://api.example.com', 'k', {
      concurrency: 9,
      baselineMs: 30,
      climbing: true,
    });
    expect(new PaceMemory(pacePath).recall('https://api.example.com', 'k')).toEqual({
      concurrency: 9,
      baselineMs: 30,
      climbing: true,
    });
  });

  it('a short run still climbing below the remembered pace leaves it as it was', async () => {
    const { server, dir } = at;
    server.sandbox.configure({ latencyMs: 50 });
    const pacePath = join(dir, 'pace.json');
    new PaceMemory(pacePath).remember(SANDBOX_NAMESPACE, DEMO_KEY, {
      concurrency: 48,
      baselineMs: 50,
      climbing: true,
    });
    // A run with the memory gone climbs from the start: it is its own file.
    const fresh = join(dir, 'fresh.json');
    const short = await autoRun('short', 0, 20, fresh);
    expect(short.pace?.startedFrom).toBeUndefined();
    expect(new PaceMemory(fresh).recall(SANDBOX_NAMESPACE, DEMO_KEY)?.concurrency).toBeGreaterThanOrEqual(
      INITIAL_CONCURRENCY,
    );
    const before = readFileSync(pacePath, 'utf8');
    const again = await autoRun('again', 100, 20, pacePath);
    expect(again.pace?.startedFrom).toBe(48);
    expect(readFileSync(pacePath, 'utf8')).toBe(before);
  });
});
