// The service models (issue 22): a gateway's per-key token bucket, a backend's capacity with a
// FIFO queue, a latency distribution, and the stats that show them, on the in-process handler with
// a virtual clock, then over real HTTP and through the command.
import { OPERATIONS } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import {
  ADMIN_HEADER,
  createSandbox,
  DEMO_KEY,
  RESERVED,
  type Sandbox,
  startSandboxServer,
} from '../src/index.js';
import { drawLatency } from '../src/latency.js';
import { seededRandom } from '../src/random.js';
import { runSandboxCommand } from './run-command.js';

const phoneLookup = OPERATIONS.find((op) => op.id === 'phone-lookup');
const path = phoneLookup?.path ?? '';
const request = (phone = '5550102030', headers: Record<string, string> = {}) => ({
  method: 'POST',
  path,
  headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ Phone: phone }),
});
const admin = (sandbox: Sandbox, action: string, body?: unknown) =>
  sandbox.handle({
    method: body === undefined ? 'GET' : 'POST',
    path: `/__sandbox/${action}`,
    headers: { [ADMIN_HEADER]: sandbox.adminToken, 'content-type': 'application/json' },
    body: body === undefined ? '' : JSON.stringify(body),
  });
/** Sends `count` requests at the same instant; their statuses. */
const burst = (sandbox: Sandbox, count: number) =>
  Array.from({ length: count }, () => sandbox.handle(request()).status);
const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe('rate: a per-key token bucket in front of the service', () => {
  it('lets exactly burst through at once, then rate per second, and answers 429 with Retry-After: 1 past it', () => {
    let t = 0;
    const sandbox = createSandbox({ rate: 10, now: () => t });
    expect(sandbox.knobs()).toMatchObject({ rate: 10, burst: 10 });
    expect(burst(sandbox, 10)).toEqual(Array(10).fill(200));
    const refused = sandbox.handle(request());
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.body)).toMatchObject({ status: 429, error: expect.stringContaining('rate') });
    // One request every 20 ms for 3 s: one token every 100 ms gets through.
    const paced: number[] = [];
    for (t = 20; t <= 3000; t += 20) paced.push(sandbox.handle(request()).status);
    expect(count(paced, 200)).toBe(30);
    expect(count(paced, 429)).toBe(paced.length - 30);
    expect(sandbox.transactions()).toBe(40);
  });

  it('refills up to burst after a pause, and reset fills the buckets', () => {
    let t = 0;
    const sandbox = createSandbox({ rate: 4, burst: 2, now: () => t });
    expect(burst(sandbox, 3)).toEqual([200, 200, 429]);
    t = 250; // one token
    expect(burst(sandbox, 2)).toEqual([200, 429]);
    t = 60_000; // a long pause fills the bucket to burst, not beyond
    expect(burst(sandbox, 3)).toEqual([200, 200, 429]);
    sandbox.reset();
    expect(burst(sandbox, 3)).toEqual([200, 200, 429]);
  });

  it('a fractional rate, its default burst of 1; a burst below 1 is refused', () => {
    let t = 0;
    const sandbox = createSandbox({ rate: 0.5, now: () => t });
    expect(sandbox.knobs().burst).toBe(1);
    expect(burst(sandbox, 2)).toEqual([200, 429]);
    t = 1999;
    expect(burst(sandbox, 1)).toEqual([429]);
    t = 4000;
    expect(burst(sandbox, 2)).toEqual([200, 429]);
    // A bucket that never holds a whole token would let nothing through: refused, as --burst is
    // (it used to be taken as 1 while knobs() said 0.2).
    expect(() => createSandbox({ rate: 5, burst: 0.2, now: () => t })).toThrow(
      'burst takes a number, at least 1, or null for the default (the rate, at least 1); got 0.2',
    );
  });

  it('each key has its own bucket; a bad key is refused before the bucket', () => {
    const sandbox = createSandbox({ keys: ['a', 'b'], rate: 1, now: () => 0 });
    const as = (key: string) => sandbox.handle(request('5550102030', { 'x-api-key': key })).status;
    expect([as('a'), as('a'), as('b'), as('b'), as('c')]).toEqual([200, 429, 200, 429, 401]);
  });

  it('refuses before the body is read and before the allowance: nothing is billed or used up', () => {
    const sandbox = createSandbox({ rate: 10, allowance: 12, now: () => 0 });
    expect(count(burst(sandbox, 15), 429)).toBe(5);
    expect(sandbox.handle({ ...request(), body: 'not json' }).status).toBe(429); // not 400
    expect(sandbox.handle({ ...request(), headers: { 'x-api-key': DEMO_KEY } }).status).toBe(429); // not 415
    expect(sandbox.transactions()).toBe(10);
    let t = 1000;
    const later = createSandbox({ rate: 10, allowance: 12, now: () => t });
    burst(later, 15);
    t = 2000;
    const after = [later.handle(request()), later.handle(request()), later.handle(request())];
    expect(after.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(JSON.parse(after[2]?.body ?? '{}').error).toMatch(/maximum number of transactions/);
    expect(later.transactions()).toBe(12);
  });

  it('follows a configure that halves the rate at once, keeping the tokens capped at the new burst', () => {
    let t = 0;
    const sandbox = createSandbox({ rate: 10, now: () => t });
    burst(sandbox, 10);
    t = 500; // 5 tokens at the old rate
    sandbox.configure({ rate: 5 });
    expect(sandbox.knobs()).toMatchObject({ rate: 5, burst: 5 });
    expect(burst(sandbox, 6)).toEqual([200, 200, 200, 200, 200, 429]);
    t = 1500; // 5 tokens at the new rate
    expect(count(burst(sandbox, 10), 200)).toBe(5);
    t = 1700; // tokens kept when only the burst changes: 1 in the bucket
    sandbox.configure({ burst: 3 });
    expect(sandbox.knobs()).toMatchObject({ rate: 5, burst: 3 });
    t = 2100; // + 2
    expect(count(burst(sandbox, 10), 200)).toBe(3);
  });

  it('is configured over the admin path: a number, or null for none; a bad value is a 400', () => {
    const sandbox = createSandbox({ now: () => 0 });
    expect(count(burst(sandbox, 50), 200)).toBe(50);
    expect(JSON.parse(admin(sandbox, 'configure', { rate: 2, burst: 3 }).body)).toMatchObject({
      rate: 2,
      burst: 3,
    });
    expect(burst(sandbox, 4)).toEqual([200, 200, 200, 429]);
    expect(admin(sandbox, 'configure', { rate: -1 }).status).toBe(400);
    expect(admin(sandbox, 'configure', { capacity: 0 }).status).toBe(400);
    expect(admin(sandbox, 'configure', { burst: 'many' }).status).toBe(400);
    expect(sandbox.knobs()).toMatchObject({ rate: 2, burst: 3 });
    const off = JSON.parse(admin(sandbox, 'configure', { rate: null }).body);
    expect(off).toMatchObject({ rate: null, burst: null });
    expect(count(burst(sandbox, 50), 200)).toBe(50);
  });
});

describe('capacity: requests in service at once, the rest in a FIFO queue', () => {
  it('with capacity 2 and 100 ms, four requests at once wait their turn', () => {
    let t = 0;
    const sandbox = createSandbox({ capacity: 2, latencyMs: 100, now: () => t });
    const delays = Array.from({ length: 4 }, () => sandbox.handle(request()).delayMs);
    expect(delays).toEqual([100, 100, 200, 200]);
    expect(sandbox.stats()).toMatchObject({ peakInService: 2, peakWaiting: 2 });
    t = 150; // two in service until 200, none waiting: the next one waits 50 ms
    expect(sandbox.handle(request()).delayMs).toBe(150);
    t = 1000;
    expect(sandbox.handle(request()).delayMs).toBe(100);
    expect(sandbox.stats()).toMatchObject({ peakInService: 2, peakWaiting: 2 });
  });

  it('answers that never reach the service take the fixed latency and no slot; the bucket refuses at once', () => {
    const sandbox = createSandbox({ capacity: 1, latencyMs: 100, rate: 3, now: () => 0 });
    expect(sandbox.handle(request()).delayMs).toBe(100);
    expect(sandbox.handle({ ...request(), body: '{}' }).delayMs).toBe(100); // 400, after taking a token
    expect(sandbox.handle(request('5550102030', { 'x-api-key': 'wrong' })).delayMs).toBe(100); // 401
    expect(sandbox.handle(request()).delayMs).toBe(200);
    const throttled = sandbox.handle(request());
    expect(throttled.status).toBe(429);
    expect(throttled.delayMs).toBe(0);
    expect(sandbox.stats()).toMatchObject({ peakInService: 1, peakWaiting: 1 });
  });

  it('every answer of the service takes a slot: 204, 440, 500, and the slow input for its 2 s', () => {
    const sandbox = createSandbox({ capacity: 1, latencyMs: 10, now: () => 0 });
    const phone = (outcome: string) => RESERVED.find((r) => r.outcome === outcome)?.phone ?? '';
    const answers = ['no-match', 'too-many', 'fault', 'slow'].map((o) => sandbox.handle(request(phone(o))));
    expect(answers.map((a) => [a.status, a.delayMs])).toEqual([
      [204, 10],
      [440, 20],
      [500, 30],
      [200, 2040],
    ]);
    expect(sandbox.handle(request()).delayMs).toBe(2050);
    // The reserved 429 stands for the allowance: it takes the fixed latency, no slot.
    expect(sandbox.handle(request(phone('allowance'))).delayMs).toBe(10);
  });

  it('a configure changes the capacity at once; null lifts it', () => {
    let t = 0;
    const sandbox = createSandbox({ capacity: 4, latencyMs: 100, now: () => t });
    for (let i = 0; i < 4; i++) sandbox.handle(request());
    sandbox.configure({ capacity: 2 });
    // Four in service until 100: two of them must end before a slot is free for this one.
    expect(sandbox.handle(request()).delayMs).toBe(200);
    t = 1000;
    sandbox.configure({ capacity: null as unknown as number });
    expect(sandbox.knobs().capacity).toBe(Number.POSITIVE_INFINITY);
    expect(Array.from({ length: 5 }, () => sandbox.handle(request()).delayMs)).toEqual(Array(5).fill(100));
  });

  it('without a capacity, every request in service counts towards the peak', () => {
    let t = 0;
    const sandbox = createSandbox({ latencyMs: 100, now: () => t });
    for (let i = 0; i < 3; i++) sandbox.handle(request());
    t = 50;
    sandbox.handle(request());
    t = 150;
    sandbox.handle(request());
    expect(sandbox.stats()).toMatchObject({ peakInService: 4, peakWaiting: 0 });
  });
});

describe('latency as a distribution', () => {
  it('log-normal with the given median and 99th percentile', () => {
    const random = seededRandom('sandbox|latency');
    const draws = Array.from({ length: 20_000 }, () => drawLatency(100, 300, random.next)).sort(
      (a, b) => a - b,
    );
    const median = draws[10_000] as number;
    const p99 = draws[19_800] as number;
    expect(Math.abs(median - 100) / 100).toBeLessThan(0.05);
    expect(Math.abs(p99 - 300) / 300).toBeLessThan(0.1);
    expect(draws[0]).toBeGreaterThan(0);
  });

  it('a fixed latency when the p99 is not above the median, drawing nothing', () => {
    let drawn = 0;
    const random = () => {
      drawn++;
      return 0.5;
    };
    expect([
      drawLatency(100, 100, random),
      drawLatency(100, 50, random),
      drawLatency(0, 300, random),
    ]).toEqual([100, 100, 0]);
    expect(drawn).toBe(0);
  });

  it('the same seed gives the same delays; another seed others; reset starts the sequence again', () => {
    const run = (seed: string) => {
      const sandbox = createSandbox({ seed, latencyMs: 100, latencyP99Ms: 300, now: () => 0 });
      return Array.from({ length: 50 }, (_, i) => sandbox.handle(request(`55501020${10 + i}`)).delayMs);
    };
    const first = run('a');
    expect(new Set(first).size).toBeGreaterThan(40);
    expect(run('a')).toEqual(first);
    expect(run('b')).not.toEqual(first);
    let t = 0;
    const sandbox = createSandbox({ seed: 'a', latencyMs: 100, latencyP99Ms: 300, now: () => t });
    const once = Array.from({ length: 5 }, () => sandbox.handle(request()).delayMs);
    sandbox.reset();
    t = 10_000;
    expect(Array.from({ length: 5 }, () => sandbox.handle(request()).delayMs)).toEqual(once);
    expect(once).toEqual(first.slice(0, 5));
  });

  it('only the answers of the service are drawn; the slow input keeps its 2 s; latencyMs alone makes it fixed again', () => {
    const sandbox = createSandbox({ latencyMs: 100, latencyP99Ms: 300, now: () => 0 });
    expect(sandbox.handle({ ...request(), body: '{}' }).delayMs).toBe(100);
    const slow = RESERVED.find((r) => r.outcome === 'slow')?.phone ?? '';
    const late = sandbox.handle(request(slow)).delayMs;
    expect(late).toBeGreaterThan(2000);
    expect(late).not.toBe(2100);
    sandbox.configure({ latencyMs: 50 });
    expect(sandbox.knobs()).toMatchObject({ latencyMs: 50, latencyP99Ms: 50 });
    expect(sandbox.handle(request()).delayMs).toBe(50);
    sandbox.configure({ latencyP99Ms: 200 });
    expect(sandbox.knobs().latencyP99Ms).toBe(200);
    sandbox.configure({ latencyP99Ms: null as unknown as number });
    expect(sandbox.knobs().latencyP99Ms).toBe(50);
  });
});

describe('stats', () => {
  it('throttled, answers per second, peaks; the admin paths are not counted; reset zeroes them', () => {
    let t = 0;
    const sandbox = createSandbox({ rate: 2, latencyMs: 100, now: () => t });
    expect(sandbox.stats()).toEqual({
      transactions: 0,
      requests: 0,
      byStatus: {},
      throttled: 0,
      overloaded: 0,
      answersPerSecond: 0,
      peakInService: 0,
      peakWaiting: 0,
    });
    expect(burst(sandbox, 3)).toEqual([200, 200, 429]);
    expect(sandbox.stats().answersPerSecond).toBeCloseTo(2 / 0.1, 6);
    t = 1000;
    sandbox.handle(request());
    admin(sandbox, 'stats');
    expect(JSON.parse(admin(sandbox, 'stats').body)).toEqual({
      transactions: 3,
      requests: 4,
      byStatus: { '200': 3, '429': 1 },
      throttled: 1,
      overloaded: 0,
      answersPerSecond: Math.round((3 / 1.1) * 1000) / 1000,
      peakInService: 2,
      peakWaiting: 0,
    });
    expect(JSON.parse(admin(sandbox, 'reset', {}).body)).toMatchObject({
      requests: 0,
      byStatus: {},
      throttled: 0,
      answersPerSecond: 0,
      peakInService: 0,
    });
  });

  it('answers per second is 0 with fewer than two answers, and counts 429s from any cause as throttled', () => {
    const sandbox = createSandbox({ allowance: 1, latencyMs: 100, now: () => 0 });
    sandbox.handle(request());
    expect(sandbox.stats().answersPerSecond).toBe(0);
    sandbox.handle(request());
    sandbox.handle(request(RESERVED.find((r) => r.outcome === 'allowance')?.phone));
    sandbox.handle(request('5550102030', { 'x-sandbox-misbehave': 'retry-after-huge' }));
    expect(sandbox.stats()).toMatchObject({ throttled: 3, answersPerSecond: 0 });
  });

  it('a long run keeps its bookkeeping small and its peaks right', () => {
    let t = 0;
    const sandbox = createSandbox({ capacity: 8, latencyMs: 40, latencyP99Ms: 120, now: () => t });
    for (let i = 0; i < 20_000; i++) {
      t = i * 5; // 200 a second, about 10 in service on average: the queue fills at times
      sandbox.handle(request());
    }
    const stats = sandbox.stats();
    expect(stats.peakInService).toBe(8);
    expect(stats.peakWaiting).toBeGreaterThan(0);
    expect(stats.answersPerSecond).toBeGreaterThan(150);
    expect(stats.answersPerSecond).toBeLessThan(200.1);
  });
});

describe('over real HTTP, and through the command', () => {
  it('a rate of 20/s with burst 5 answers 429 to part of 40 requests at once, and counts them', async () => {
    const server = await startSandboxServer({ port: 0, rate: 20, burst: 5 });
    try {
      const responses = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          fetch(server.url + path, {
            method: 'POST',
            headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json' },
            body: JSON.stringify({ Phone: `55501020${10 + i}` }),
          }).then(async (r) => ({
            status: r.status,
            retryAfter: r.headers.get('retry-after'),
            body: await r.text(),
          })),
        ),
      );
      const throttled = responses.filter((r) => r.status === 429);
      expect(throttled.length).toBeGreaterThan(0);
      expect(throttled.length).toBeLessThanOrEqual(35); // at least the burst gets through
      expect(responses.filter((r) => r.status === 200).length).toBe(40 - throttled.length);
      expect(throttled.every((r) => r.retryAfter === '1')).toBe(true);
      const stats = await (
        await fetch(`${server.url}/__sandbox/stats`, { headers: { 'x-api-key': DEMO_KEY } })
      ).json();
      expect(stats).toMatchObject({
        throttled: throttled.length,
        requests: 40,
        transactions: 40 - throttled.length,
        byStatus: { '200': 40 - throttled.length, '429': throttled.length },
      });
      expect(stats.answersPerSecond).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it('the command takes --rate, --burst, --capacity, --latency-p99 and their environment variables', async () => {
    const run = runSandboxCommand;
    const [flags, variables, badCapacity, badP99] = await Promise.all([
      run(['--rate', '20', '--burst', '5', '--capacity', '4', '--latency', '50', '--latency-p99', '120'], {}),
      run([], {
        SANDBOX_RATE: '2.5',
        SANDBOX_CAPACITY: '16',
        SANDBOX_LATENCY_MS: '50',
        SANDBOX_LATENCY_P99_MS: '80',
      }),
      run(['--capacity', '0'], {}),
      run(['--latency-p99', '100'], {}),
    ]);
    expect(flags.out).toContain(
      'Service model: 20 requests/s per key (burst 5); 4 in service at once; latency median 50 ms, p99 120 ms',
    );
    expect(variables.out).toContain(
      'Service model: 2.5 requests/s per key (burst 2.5); 16 in service at once; latency median 50 ms, p99 80 ms',
    );
    expect(badCapacity.code).toBe(2);
    expect(badCapacity.err).toContain('--capacity');
    expect(badP99.code).toBe(2);
    expect(badP99.err).toContain('--latency-p99');
  }, 30_000);
});
