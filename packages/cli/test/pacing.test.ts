// The pace with the command's defaults (--concurrency auto), against sandboxes that model services:
// a gateway's token bucket, a capacity with a queue; and what must not change: an allowance used up
// still stops the run (exit 5) without hammering the service, a Retry-After over the cap still
// stops it, and the progress lines and summary say what the pace was and why it changed.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PACE_CHANGES } from '@enrich/core';
import type { SandboxServer } from '@enrich/sandbox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { phone, readRecords, runCli, sandboxEnv, startServer, tempDir, writeCsv } from './helpers.js';

// Runs of several seconds: the services are slow on purpose.
vi.setConfig({ testTimeout: 30_000 });

let server: SandboxServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function phones(dir: string, count: number): void {
  writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: count }, (_, i) => [phone(i)])]);
}

const anyChange = new RegExp(
  Object.values(PACE_CHANGES)
    .map((text) => text.replace(/[()]/g, '\\$&'))
    .join('|'),
);

describe('--concurrency auto (the default)', () => {
  it('finds a token bucket of 40/s and sits under it: few 429s, every row answered once', async () => {
    server = await startServer({ rate: 40, latencyMs: 100 });
    const dir = tempDir();
    phones(dir, 300);
    const ran = await runCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json', '--progress-every', '1'],
      { env: sandboxEnv(server), cwd: dir },
    );
    expect(ran.code).toBe(0);
    const summary = JSON.parse(ran.stdout);
    expect(summary).toMatchObject({ ok: 300, errors: 0, transactions: 300, completed: true });
    expect(summary.pace).toMatchObject({ mode: 'auto' });
    const stats = server.sandbox.stats();
    expect(stats.transactions).toBe(300);
    expect(stats.throttled).toBe(summary.throttled);
    expect(stats.throttled / stats.requests).toBeLessThanOrEqual(0.05);
    // 300 at 40/s with a burst of 40: about 6.5 s at best; well under 1.5 times that.
    expect(stats.answersPerSecond).toBeGreaterThanOrEqual(0.75 * 40);
    expect(stats.answersPerSecond).toBeLessThanOrEqual(48);
    expect(ran.stderr).toMatch(/^Phone Lookup: .* transactions, .* rows\/s; pace [\d.]+\/s, \d+ in flight/m);
    expect(ran.stderr).toMatch(anyChange);
    expect(readRecords(join(dir, 'out.csv')).every((r) => r.status === 'ok')).toBe(true);
  });

  it('finds a capacity: past it, answers slow down, and the run holds near it instead of the maximum', async () => {
    server = await startServer({ capacity: 6, latencyMs: 40 });
    const dir = tempDir();
    phones(dir, 600);
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json', '--quiet'], {
      env: sandboxEnv(server),
      cwd: dir,
    });
    expect(ran.code).toBe(0);
    const summary = JSON.parse(ran.stdout);
    expect(summary.ok).toBe(600);
    const stats = server.sandbox.stats();
    // 6 in service at 40 ms: 150/s. Found without a 429 (there are none to find it by).
    expect(stats.throttled).toBe(0);
    expect(stats.answersPerSecond).toBeGreaterThanOrEqual(0.75 * 150);
    // It did not push its maximum (64) into the service's queue.
    expect(stats.peakWaiting).toBeLessThan(40);
    expect(summary.pace.concurrency).toBeLessThan(40);
  });

  it('prints the pace in the summary, with the 429s as a share of the requests', async () => {
    server = await startServer({ rate: 30, burst: 5, latencyMs: 50 });
    const dir = tempDir();
    phones(dir, 120);
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--quiet'], {
      env: sandboxEnv(server),
      cwd: dir,
    });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^ {2}pace {16}[\d.]+ answers\/s; found by itself: up to \d+ at a time/m);
    if (server.sandbox.stats().throttled > 0) {
      expect(ran.stdout).toMatch(/^ {2}429 answers {9}\d+ \([\d.]+ % of requests sent\)$/m);
    }
  });
});

describe('the pace of the last run', () => {
  it('starts the next run against the same service, says so, and --no-remember-pace or deleting the file forgets it', async () => {
    server = await startServer({ latencyMs: 50 });
    const dir = tempDir();
    const cache = tempDir();
    const env = { ...sandboxEnv(server), ENRICH_CACHE_DIR: cache };
    const run = async (name: string, from: number, more: string[] = []) => {
      writeCsv(join(dir, `${name}.csv`), [
        ['phone'],
        ...Array.from({ length: 200 }, (_, i) => [phone(from + i)]),
      ]);
      const ran = await runCli(
        ['phone-lookup', '--in', `${name}.csv`, '--out', `${name}.out.csv`, '--quiet', ...more],
        {
          env,
          cwd: dir,
        },
      );
      expect(ran.code).toBe(0);
      return ran.stdout;
    };
    const first = await run('first', 0);
    expect(first).not.toMatch(/started from the pace of the last run/);
    const pacePath = join(cache, 'pace.json');
    expect(existsSync(pacePath)).toBe(true);
    expect(readFileSync(pacePath, 'utf8')).not.toContain(sandboxEnv(server).ENRICH_API_KEY);
    expect(await run('second', 1000)).toMatch(
      /^ {2}pace {16}[\d.]+ answers\/s; found by itself: up to \d+ at a time at the end; started from the pace of the last run: \d+ at a time$/m,
    );
    // A fixed number ignores it.
    expect(await run('fixed', 2000, ['--concurrency', '4'])).not.toMatch(/started from/);
    // --no-remember-pace neither starts from it nor keeps its own.
    const before = readFileSync(pacePath, 'utf8');
    expect(await run('forgetful', 3000, ['--no-remember-pace'])).not.toMatch(/started from/);
    expect(readFileSync(pacePath, 'utf8')).toBe(before);
    rmSync(pacePath);
    expect(await run('deleted', 4000)).not.toMatch(/started from/);
  });
});

describe('what the pace must not change', () => {
  it('an allowance used up stops the run (exit 5): every request waits, the service is not hammered', async () => {
    server = await startServer({ allowance: 20, retryAfterSeconds: 1 });
    const dir = tempDir();
    phones(dir, 200);
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json', '--quiet'], {
      env: sandboxEnv(server),
      cwd: dir,
    });
    expect(ran.code).toBe(5);
    const summary = JSON.parse(ran.stdout);
    expect(summary).toMatchObject({ transactions: 20, stopped: 'allowance' });
    // Each 429 while nothing was answered paused every request: a handful of rounds of retries,
    // not 180 requests times five attempts.
    expect(server.sandbox.stats().throttled).toBeLessThanOrEqual(5 * 64);
    expect(server.sandbox.stats().throttled).toBeLessThan(summary.rows);
  });

  it('a Retry-After longer than --max-retry-after stops the run cleanly (exit 5)', async () => {
    server = await startServer({ misbehave: ['retry-after-huge'] });
    const dir = tempDir();
    phones(dir, 50);
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json', '--quiet'], {
      env: sandboxEnv(server),
      cwd: dir,
    });
    expect(ran.code).toBe(5);
    expect(JSON.parse(ran.stdout)).toMatchObject({ transactions: 0, stopped: 'allowance' });
    expect(server.sandbox.stats().requests).toBeLessThanOrEqual(8);
  });

  it('Ctrl-C ends a run within 10 s, even while it waits its turn', async () => {
    server = await startServer({ rate: 2, burst: 1, latencyMs: 3000 });
    const dir = tempDir();
    phones(dir, 100);
    const stop = new AbortController();
    const started = Date.now();
    setTimeout(() => stop.abort(), 3000);
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json', '--quiet'], {
      env: sandboxEnv(server),
      cwd: dir,
      signal: stop.signal,
    });
    expect(Date.now() - started).toBeLessThan(13_000);
    expect(ran.code).toBe(130);
    expect(JSON.parse(ran.stdout).completed).toBe(false);
  });
});
