// The service families of issue 36, against which a client's pacing is measured: a latency spread
// given as σ, a backend that answers 503 at once past its capacity instead of queueing, a gateway's
// fixed window (N a window, 429 with Retry-After to its end, and rate headers on request), and a
// token bucket whose 429 says nothing of when to come back. Each on the in-process handler with a
// virtual clock, then over real HTTP on 127.0.0.1, then through the command.
import { OPERATIONS } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { createSandbox, DEMO_KEY, RESERVED, type Sandbox, startSandboxServer } from '../src/index.js';
import { runSandboxCommand } from './run-command.js';

const path = OPERATIONS.find((op) => op.id === 'phone-lookup')?.path ?? '';
const request = (phone = '5550102030', headers: Record<string, string> = {}) => ({
  method: 'POST',
  path,
  headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ Phone: phone }),
});
const at = (sandbox: Sandbox, count: number) =>
  Array.from({ length: count }, () => sandbox.handle(request()));
const post = (url: string, phone = '5550102030') =>
  fetch(url + path, {
    method: 'POST',
    headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ Phone: phone }),
  });

describe('latencySigma: the latency spread given as σ', () => {
  it('draws service times whose median is latencyMs and whose logarithm has σ as its standard deviation', () => {
    const sandbox = createSandbox({ latencyMs: 120, latencySigma: 1, now: () => 0 });
    const logs = Array.from({ length: 8000 }, (_, i) =>
      Math.log(sandbox.handle(request(`5551${String(i).padStart(6, '0')}`)).delayMs),
    );
    const mean = logs.reduce((sum, x) => sum + x, 0) / logs.length;
    const sd = Math.sqrt(logs.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (logs.length - 1));
    expect(Math.exp(mean)).toBeGreaterThan(120 * 0.95);
    expect(Math.exp(mean)).toBeLessThan(120 * 1.05);
    expect(sd).toBeGreaterThan(0.96);
    expect(sd).toBeLessThan(1.04);
  });

  it('is the p99 said another way: either sets the other, both must agree, a median alone makes it fixed', () => {
    const sandbox = createSandbox({ latencyMs: 100, latencySigma: 0.5 });
    expect(sandbox.knobs().latencyP99Ms).toBeCloseTo(100 * Math.exp(0.5 * 2.3263478740408408), 9);
    sandbox.configure({ latencyP99Ms: 300 });
    expect(sandbox.knobs().latencySigma).toBeCloseTo(Math.log(3) / 2.3263478740408408, 12);
    // Same draws whichever way the spread was said.
    const bySigma = createSandbox({
      latencyMs: 100,
      latencySigma: sandbox.knobs().latencySigma,
      now: () => 0,
    });
    const byP99 = createSandbox({ latencyMs: 100, latencyP99Ms: 300, now: () => 0 });
    const delays = (s: Sandbox) => at(s, 20).map((a) => a.delayMs);
    expect(delays(bySigma).map((d) => d.toFixed(6))).toEqual(delays(byP99).map((d) => d.toFixed(6)));
    // What knobs() answers can be sent back whole.
    sandbox.configure(sandbox.knobs());
    expect(() => sandbox.configure({ latencySigma: 1, latencyP99Ms: 300 })).toThrow(
      "latencySigma and latencyP99Ms say the latency's spread two ways: give one, or two that agree (σ 1 at a median of 100 is a p99 of 1024.047); got a p99 of 300",
    );
    sandbox.configure({ latencySigma: 1.25 });
    expect(sandbox.knobs()).toMatchObject({ latencyMs: 100, latencySigma: 1.25 });
    sandbox.configure({ latencyMs: 50 });
    expect(sandbox.knobs()).toMatchObject({ latencyMs: 50, latencyP99Ms: 50, latencySigma: 0 });
    sandbox.configure({ latencySigma: 0.25 });
    sandbox.configure({ latencySigma: null as unknown as number });
    expect(sandbox.knobs()).toMatchObject({ latencyP99Ms: 50, latencySigma: 0 });
  });

  it('is configured over HTTP, and answered with the p99 it makes', async () => {
    const server = await startSandboxServer({ port: 0, latencyMs: 120 });
    try {
      const configure = (body: unknown) =>
        fetch(`${server.url}/__sandbox/configure`, {
          method: 'POST',
          headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const answer = await configure({ latencySigma: 1 });
      expect(answer.status).toBe(200);
      const knobs = (await answer.json()) as Record<string, number>;
      expect(knobs.latencySigma).toBe(1);
      expect(knobs.latencyP99Ms).toBeCloseTo(1228.857, 3);
      expect((await configure({ latencySigma: 3.5 })).status).toBe(400);
      expect(server.sandbox.knobs().latencySigma).toBe(1);
    } finally {
      await server.close();
    }
  });
});

describe("overload '503': past its capacity, the service answers 503 at once instead of queueing", () => {
  it('turns away what would have waited, without billing it or giving it a slot; a freed slot serves again', () => {
    let t = 0;
    const sandbox = createSandbox({ capacity: 2, latencyMs: 100, overload: '503', now: () => t });
    const answers = at(sandbox, 4);
    expect(answers.map((a) => [a.status, a.delayMs])).toEqual([
      [200, 100],
      [200, 100],
      [503, 0],
      [503, 0],
    ]);
    const refused = answers[2];
    expect(refused?.headers['retry-after']).toBeUndefined();
    expect(JSON.parse(refused?.body ?? '{}')).toEqual({
      status: 503,
      error: 'Service overloaded: all 2 slots are busy',
    });
    // The reserved no-match would be billed if it reached the service: turned away, it is not.
    const noMatch = RESERVED.find((r) => r.outcome === 'no-match')?.phone;
    expect(sandbox.handle(request(noMatch)).status).toBe(503);
    // A bad body is refused in front of the service, whatever its load.
    expect(sandbox.handle({ ...request(), body: '{}' }).status).toBe(400);
    expect(sandbox.transactions()).toBe(2);
    t = 100;
    expect(at(sandbox, 3).map((a) => a.status)).toEqual([200, 200, 503]);
    expect(sandbox.stats()).toMatchObject({
      overloaded: 4,
      byStatus: { '200': 4, '400': 1, '503': 4 },
      peakInService: 2,
      peakWaiting: 0,
      // 5 answers (four 200s and the 400) from 0 to 200 ms: the 503s are refusals, as 429s are.
      answersPerSecond: 25,
    });
  });

  it("'queue' (the default) queues the same burst; without a capacity nothing is turned away", () => {
    const queued = createSandbox({ capacity: 2, latencyMs: 100, now: () => 0 });
    expect(queued.knobs().overload).toBe('queue');
    expect(at(queued, 4).map((a) => [a.status, a.delayMs])).toEqual([
      [200, 100],
      [200, 100],
      [200, 200],
      [200, 200],
    ]);
    const unlimited = createSandbox({ latencyMs: 100, overload: '503', now: () => 0 });
    expect(at(unlimited, 50).every((a) => a.status === 200)).toBe(true);
    // Switched to 503 while a queue is there: nothing new joins it until it has drained.
    queued.configure({ overload: '503' });
    expect(queued.handle(request()).status).toBe(503);
  });

  it('over HTTP: one of three at once is served, the other two get 503 before it', async () => {
    const server = await startSandboxServer({ port: 0, capacity: 1, latencyMs: 400, overload: '503' });
    try {
      const order: number[] = [];
      const responses = await Promise.all(
        ['5550102031', '5550102032', '5550102033'].map((phone) =>
          post(server.url, phone).then(async (r) => {
            order.push(r.status);
            return { status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.json() };
          }),
        ),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([200, 503, 503]);
      expect(order).toEqual([503, 503, 200]);
      for (const r of responses.filter((x) => x.status === 503)) {
        expect(r.retryAfter).toBeNull();
        expect(r.body).toEqual({ status: 503, error: 'Service overloaded: all 1 slots are busy' });
      }
      expect(server.sandbox.stats()).toMatchObject({ overloaded: 2, transactions: 1 });
    } finally {
      await server.close();
    }
  });
});

describe('a fixed window: N requests per key per window, then 429 with Retry-After to its end', () => {
  it('counts per key in windows that start on multiples of windowMs; a refusal is not counted or billed', () => {
    let t = 2500;
    const sandbox = createSandbox({ keys: ['a', 'b'], windowLimit: 3, windowMs: 10_000, now: () => t });
    const as = (key: string) => sandbox.handle(request('5550102030', { 'x-api-key': key }));
    expect([as('a'), as('a'), as('a')].map((a) => a.status)).toEqual([200, 200, 200]);
    const refused = as('a');
    expect(refused.status).toBe(429);
    expect(refused.delayMs).toBe(0);
    // The window [0, 10 s) ends in 7.5 s: Retry-After rounds up, never early.
    expect(refused.headers['retry-after']).toBe('8');
    expect(JSON.parse(refused.body).error).toBe('Too many requests: the limit is 3 per 10 s per key');
    expect(as('b').status).toBe(200);
    t = 9999;
    expect(as('a').status).toBe(429);
    t = 10_000; // a new window: a full count again
    expect([as('a'), as('a'), as('a'), as('a')].map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(sandbox.transactions('a')).toBe(6);
    expect(sandbox.stats().throttled).toBe(3);
    // reset empties the windows; a window of 0 refuses everything.
    sandbox.reset();
    expect(as('a').status).toBe(200);
    sandbox.configure({ windowLimit: 0 });
    expect(as('b').status).toBe(429);
    sandbox.configure({ windowLimit: null as unknown as number });
    expect(Array.from({ length: 10 }, () => as('b').status)).toEqual(Array(10).fill(200));
  });

  it('with rateHeaders, every answer the window counted says what is left of it; without, none does', () => {
    let t = 61_000;
    const told = createSandbox({ windowLimit: 2, windowMs: 60_000, rateHeaders: true, now: () => t });
    const first = told.handle(request());
    expect(first.headers).toMatchObject({
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '1',
      'x-ratelimit-reset': '59',
      'ratelimit-policy': '"window";q=2;w=60',
      ratelimit: '"window";r=1;t=59',
    });
    t = 119_500;
    // A 400 went through the gateway: counted, and told.
    expect(told.handle({ ...request(), body: '{}' }).headers).toMatchObject({
      'x-ratelimit-remaining': '0',
      ratelimit: '"window";r=0;t=1',
    });
    const refused = told.handle(request());
    expect(refused.status).toBe(429);
    expect(refused.headers).toMatchObject({
      'retry-after': '1',
      'x-ratelimit-remaining': '0',
      ratelimit: '"window";r=0;t=1',
    });
    // A 401 never reached the gateway's count.
    expect(
      told.handle(request('5550102030', { 'x-api-key': 'wrong' })).headers['x-ratelimit-limit'],
    ).toBeUndefined();
    const silent = createSandbox({ windowLimit: 2, windowMs: 60_000, now: () => t });
    expect(Object.keys(silent.handle(request()).headers).filter((h) => h.includes('ratelimit'))).toEqual([]);
  });

  it('over HTTP, with the headers as a client reads them', async () => {
    let t = 2500;
    const server = await startSandboxServer({
      port: 0,
      windowLimit: 2,
      windowMs: 10_000,
      rateHeaders: true,
      now: () => t,
    });
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await post(server.url));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
      expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['1', '0', '0']);
      expect(answers[2]?.headers.get('retry-after')).toBe('8');
      expect(answers[2]?.headers.get('ratelimit')).toBe('"window";r=0;t=8');
      expect(answers[0]?.headers.get('ratelimit-policy')).toBe('"window";q=2;w=10');
      t = 10_000;
      expect((await post(server.url)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('a token bucket whose 429 says nothing of when to come back (rateRetryAfter false)', () => {
  it('refuses as before, without Retry-After; true brings it back', () => {
    const sandbox = createSandbox({ rate: 1, rateRetryAfter: false, now: () => 0 });
    const [served, refused] = at(sandbox, 2);
    expect(served?.status).toBe(200);
    expect(refused?.status).toBe(429);
    expect(refused?.headers['retry-after']).toBeUndefined();
    sandbox.configure({ rateRetryAfter: true });
    expect(sandbox.handle(request()).headers['retry-after']).toBe('1');
  });

  it('over HTTP', async () => {
    const server = await startSandboxServer({ port: 0, rate: 1, rateRetryAfter: false });
    try {
      const [first, second] = [await post(server.url), await post(server.url)];
      expect([first.status, second.status]).toEqual([200, 429]);
      expect(second.headers.get('retry-after')).toBeNull();
    } finally {
      await server.close();
    }
  });
});

describe('the command', () => {
  const MODEL =
    'Service model: 50 requests/s per key (burst 50, 429 without Retry-After); 600 requests per 10000 ms window per key, with rate headers; 8 in service at once, 503 past it; latency median 120 ms, p99 1228.9 ms (σ 1)';

  it('takes each family by its flags, and by its environment variables', async () => {
    const [flags, variables] = await Promise.all([
      runSandboxCommand(
        [
          ...['--latency', '120', '--latency-sigma', '1', '--rate', '50', '--no-rate-retry-after'],
          ...['--window-limit', '600', '--window-ms', '10000', '--rate-headers', '--capacity', '8'],
          ...['--overload', '503'],
        ],
        {},
      ),
      runSandboxCommand([], {
        SANDBOX_LATENCY_MS: '120',
        SANDBOX_LATENCY_SIGMA: '1',
        SANDBOX_RATE: '50',
        SANDBOX_RATE_RETRY_AFTER: '0',
        SANDBOX_WINDOW_LIMIT: '600',
        SANDBOX_WINDOW_MS: '10000',
        SANDBOX_RATE_HEADERS: '1',
        SANDBOX_CAPACITY: '8',
        SANDBOX_OVERLOAD: '503',
      }),
    ]);
    expect(flags.err).toBe('');
    expect(flags.out).toContain(MODEL);
    expect(variables.err).toBe('');
    expect(variables.out).toContain(MODEL);
  }, 30_000);
});
