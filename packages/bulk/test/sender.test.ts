// The Sender on its own (sender.ts), over real HTTP to the sandbox on 127.0.0.1: what it counts,
// when it stops sending and what the requests it did not send come back as, what may have been paid.
// The engine's tests (engine, pushback, budget) see it through whole runs; these pin each rule.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CleanInput, DEFAULT_MAX_CONCURRENCY, DEFAULT_RETRY_POLICY } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { DEMO_KEY } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sender, type SenderOptions } from '../src/sending/sender.js';
import { reserved, useSandboxServer } from './fixtures.js';
import { op, phone } from './sandbox-run.js';

const at = useSandboxServer();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const input = (i: number): CleanInput => ({ Phone: phone(i) });

function sender(more: Partial<SenderOptions> = {}, url = at.server.url): Sender {
  return new Sender({
    op,
    settings: { apiKey: DEMO_KEY, baseUrl: url, baseUrlV3: url },
    transport: createFetchTransport({ timeoutMs: 5000 }),
    policy: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 10, maxDelayMs: 50 },
    concurrency: 2,
    sleep,
    now: Date.now,
    ...more,
  });
}

/** Resolves to 'pending' when `p` has not settled within `ms`. */
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, sleep(ms).then(() => 'pending' as const)]);

// A server that takes requests and never answers: what is on the wire stays there.
let silent: Server;
let silentUrl: string;
beforeAll(async () => {
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
});
afterAll(async () => {
  silent.closeAllConnections();
  await new Promise((resolve) => silent.close(resolve));
});

describe('what it counts', () => {
  it('each answer paid once: spent, started, attempts; the ledger told of each', async () => {
    const told: number[] = [];
    const s = sender({ onPaid: (n) => told.push(n) });
    const results = await Promise.all([0, 1, 2, 3, 4].map((i) => s.send(input(i))));
    expect(results.map((r) => r.sent && r.paid && r.kept)).toEqual([true, true, true, true, true]);
    expect({ spent: s.spent, started: s.started, attempts: s.attempts, throttled: s.throttled }).toEqual({
      spent: 5,
      started: 5,
      attempts: 5,
      throttled: 0,
    });
    expect(told).toEqual([1, 1, 1, 1, 1]);
    expect(at.server.sandbox.transactions()).toBe(5);
    expect(s.answersPerSecond).toBeGreaterThan(0);
    expect(s.stopReason).toBeUndefined();
  });

  it('a request that fails is tried as the policy says: its attempts counted, nothing spent', async () => {
    const s = sender();
    const result = await s.send({ Phone: reserved('fault').phone });
    expect(result).toMatchObject({ sent: true, paid: false, kept: false, outcome: { kind: 'error' } });
    expect({ spent: s.spent, started: s.started, attempts: s.attempts }).toEqual({
      spent: 0,
      started: 1,
      attempts: DEFAULT_RETRY_POLICY.maxAttempts,
    });
  });

  it('answers per second: none before any answer', () => {
    expect(sender().answersPerSecond).toBe(0);
  });

  it('sizes reading ahead by the most in flight: the number fixed, or the auto cap', () => {
    expect(sender({ concurrency: 3 }).maxInFlight).toBe(3);
    expect(sender({ concurrency: 'auto', maxConcurrency: 7 }).maxInFlight).toBe(7);
    expect(sender({ concurrency: 'auto' }).maxInFlight).toBe(DEFAULT_MAX_CONCURRENCY);
    expect(sender({ concurrency: 3 }).pace.reading(Date.now())).toMatchObject({ concurrency: 3 });
  });
});

describe('its pace', () => {
  it("starts an auto run from the last run's pace, and a fixed number from that number alone", () => {
    const startFrom = { concurrency: 12, baselineMs: 40, climbing: false };
    const auto = sender({ concurrency: 'auto', startFrom });
    expect(auto.startedFrom).toBe(12);
    expect(auto.pace.reading(Date.now())).toMatchObject({ concurrency: 12 });
    const fixed = sender({ concurrency: 3, startFrom });
    expect(fixed.startedFrom).toBeUndefined();
    expect(fixed.pace.reading(Date.now())).toMatchObject({ concurrency: 3 });
    expect(sender({ concurrency: 'auto' }).startedFrom).toBeUndefined();
  });

  it('answers per second: answers over the time from the first request sent to the last answer', async () => {
    // A clock of its own: each exchange takes exactly 500 ms of it.
    let clock = 10_000;
    const real = createFetchTransport({ timeoutMs: 5000 });
    const s = sender({
      concurrency: 1,
      now: () => clock,
      transport: async (request) => {
        const response = await real(request);
        clock += 500;
        return response;
      },
    });
    await s.send(input(1));
    await s.send(input(2));
    expect(s.answersPerSecond).toBe(2);
  });

  it('answers per second: none when no time has passed between the first request and the last answer', async () => {
    const s = sender({ concurrency: 1, now: () => 10_000 });
    await s.send(input(1));
    expect(s.answersPerSecond).toBe(0);
  });

  it('a service that fails (5xx) slows an auto pace down', async () => {
    const s = sender({ concurrency: 'auto', startFrom: { concurrency: 8, baselineMs: 5, climbing: false } });
    await Promise.all(Array.from({ length: 8 }, () => s.send({ Phone: reserved('fault').phone })));
    const reading = s.pace.reading(Date.now());
    expect(reading.change).toBe('slower-failing');
    expect(reading.concurrency).toBeLessThan(8);
  });
});

describe('a request that cannot be built', () => {
  it('comes back as a configuration error, sent to nobody, unpaid', async () => {
    const s = sender({
      settings: { apiKey: DEMO_KEY, baseUrl: 'http://example.com', baseUrlV3: 'http://example.com' },
    });
    const result = await s.send(input(1));
    expect(result).toMatchObject({
      sent: true,
      paid: false,
      kept: false,
      outcome: { kind: 'error', error: { code: 'config' } },
    });
    if (result.sent && result.outcome.kind === 'error') expect(result.outcome.error.message).toMatch(/http/i);
    expect(s.started).toBe(0);
  });
});

describe('429 waits', () => {
  it('a Retry-After exactly as long as the cap is waited, not a reason to stop', async () => {
    at.server.sandbox.configure({ retryAfterSeconds: 1 });
    const s = sender({
      concurrency: 1,
      policy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 2, maxRetryAfterMs: 1000 },
    });
    const result = await s.send({ Phone: reserved('allowance').phone });
    expect(result).toMatchObject({ sent: true, paid: false });
    expect(s.throttled).toBe(2);
    expect(s.resumeAt).toBeUndefined();
  });
});

describe('retries', () => {
  it('wait through the sleep it is given, and are told with their delay and error', async () => {
    const slept: number[] = [];
    const told: { delayMs: number; code: string }[] = [];
    const s = sender({
      sleep: (ms) => {
        slept.push(ms);
        return sleep(0);
      },
      onRetry: ({ delayMs, error }) => told.push({ delayMs, code: error.code }),
    });
    await s.send({ Phone: reserved('fault').phone });
    const retries = DEFAULT_RETRY_POLICY.maxAttempts - 1;
    expect(slept).toHaveLength(retries);
    expect(told.map((t) => t.delayMs)).toEqual(slept);
    expect(told.every((t) => t.code === 'server')).toBe(true);
  });

  it('of a request already sent stop once the run stops sending: no retry starts', async () => {
    const s = sender({ policy: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 150, maxDelayMs: 150 } });
    const failing = s.send({ Phone: reserved('fault').phone });
    await sleep(60);
    expect(s.attempts).toBe(1);
    s.halt('the input file breaks off', 'input');
    expect(await failing).toMatchObject({ sent: true, paid: false });
    expect(s.attempts).toBe(1);
  });
});

describe('when it stops sending', () => {
  it('a key refused (401): the request that learnt it, and every later one, not sent', async () => {
    const s = sender({
      settings: { apiKey: 'wrong-key-123456', baseUrl: at.server.url, baseUrlV3: at.server.url },
    });
    const first = await s.send(input(1));
    expect(first).toMatchObject({ sent: true, paid: false });
    expect(s.stopReason).toBe('auth');
    expect(await s.send(input(2))).toEqual({
      sent: false,
      reason: 'not sent: the API key was refused (401)',
    });
    expect(s.started).toBe(1);
  });

  it('a wait longer than the cap: stops, says when to come back, and sends nothing more', async () => {
    at.server.sandbox.configure({ allowance: 1, allowanceWindowMs: 60_000 });
    const s = sender({
      concurrency: 1,
      policy: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 10, maxRetryAfterMs: 1000 },
    });
    expect(await s.send(input(1))).toMatchObject({ sent: true, paid: true });
    const before = Date.now();
    const second = await s.send(input(2));
    expect(second).toMatchObject({ sent: true, paid: false });
    expect(s.stopReason).toBe('allowance');
    expect(s.resumeAt).toBeGreaterThanOrEqual(before + 50_000);
    expect(s.resumeAt).toBeLessThanOrEqual(Date.now() + 61_000);
    expect(s.throttled).toBe(1);
    const third = await s.send(input(3));
    expect(third.sent).toBe(false);
    if (!third.sent) expect(third.reason).toMatch(/^not sent: .*wait/);
    expect(at.server.sandbox.transactions()).toBe(1);
  });

  it('cancel(): a retry waiting its turn ends at once, and nothing more is sent', async () => {
    const s = sender({ policy: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    const failing = s.send({ Phone: reserved('fault').phone });
    await sleep(200);
    expect(s.attempts).toBe(1);
    s.cancel();
    expect(await within(failing, 5000)).toMatchObject({ sent: true, paid: false });
    expect(s.stopReason).toBe('interrupted');
    expect(await s.send(input(1))).toEqual({ sent: false, reason: 'not sent: the run was interrupted' });
    expect(s.attempts).toBe(1);
  });

  it("cancel(): without a sleep of its own, a retry's wait is core's timer, cleared, not left to hold the process", async () => {
    const s = sender({
      sleep: undefined,
      policy: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const failing = s.send({ Phone: reserved('fault').phone });
    await sleep(200);
    expect(s.attempts).toBe(1);
    const waiting = timers();
    s.cancel();
    // Cleared at once, as the abort is told (before `within` adds a timer of its own).
    expect(timers()).toBe(waiting - 1);
    expect(await within(failing, 5000)).toMatchObject({ sent: true, paid: false });
  });

  it('a veto (the journal cannot keep answers): stops before the request leaves', async () => {
    let veto: string | undefined;
    const s = sender({ mayNotSend: () => veto });
    expect(await s.send(input(1))).toMatchObject({ sent: true, paid: true });
    veto = 'the answer cache is on a full disk';
    expect(await s.send(input(2))).toEqual({
      sent: false,
      reason: 'not sent: the answer cache is on a full disk',
    });
    expect(s.stopReason).toBe('storage');
    expect(at.server.sandbox.transactions()).toBe(1);
  });

  it('an answer that could not be kept: the run stops, saying so', async () => {
    const s = sender();
    const first = await s.send(input(1), async () => false);
    expect(first).toMatchObject({ sent: true, paid: true, kept: false });
    expect(s.stopReason).toBe('storage');
    expect(await s.send(input(2))).toEqual({ sent: false, reason: 'not sent: the answer could not be kept' });
  });

  it('an allowance gone (429 to every attempt): stops, and says the allowance is used up', async () => {
    at.server.sandbox.configure({
      allowance: 0,
      allowanceWindowMs: Number.POSITIVE_INFINITY,
      retryAfterSeconds: 0,
    });
    const s = sender({ concurrency: 1 });
    const first = await s.send(input(1));
    expect(first).toMatchObject({
      sent: true,
      paid: false,
      outcome: { kind: 'error', error: { code: 'allowance' } },
    });
    expect(s.throttled).toBe(DEFAULT_RETRY_POLICY.maxAttempts);
    expect(s.stopReason).toBe('allowance');
    expect(await s.send(input(2))).toEqual({
      sent: false,
      reason: 'not sent: the transaction allowance is used up (429); run again later',
    });
    expect(at.server.sandbox.transactions()).toBe(0);
  });

  it('cancel() while requests wait out a 429 pause: they never leave', async () => {
    at.server.sandbox.configure({ allowance: 1, allowanceWindowMs: 2000 });
    const s = sender({
      concurrency: 2,
      policy: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 10, maxRetryAfterMs: 10_000 },
    });
    expect(await s.send(input(1))).toMatchObject({ paid: true });
    // Refused (429, Retry-After to the window's end): with a fixed number, everyone waits with it.
    const refused = s.send(input(2));
    await sleep(200);
    expect(s.throttled).toBe(1);
    // Has a place in flight, and waits for its turn on the wire until the pause ends.
    const waiting = s.send(input(3));
    await sleep(200);
    const requests = at.server.sandbox.requests();
    s.cancel();
    expect(await within(waiting, 5000)).toEqual({ sent: false, reason: 'not sent: the run was interrupted' });
    expect(await within(refused, 5000)).toMatchObject({ sent: true, paid: false });
    expect(at.server.sandbox.requests()).toBe(requests);
    expect(s.started).toBe(2);
  });

  it('keeps the first reason it stopped for: a Ctrl-C after broken input does not replace it', async () => {
    const s = sender();
    s.halt('the input file breaks off at line 7', 'input');
    s.cancel();
    expect(s.stopReason).toBe('input');
    expect(await s.send(input(1))).toEqual({
      sent: false,
      reason: 'not sent: the input file breaks off at line 7',
    });
  });

  it('halt() for broken input: what is waiting is not sent', async () => {
    const s = sender();
    s.halt('the input file breaks off at line 7', 'input');
    expect(s.stopReason).toBe('input');
    expect(await s.send(input(1))).toEqual({
      sent: false,
      reason: 'not sent: the input file breaks off at line 7',
    });
  });
});

describe('what may have been paid', () => {
  it('a request abandoned on the wire (a second Ctrl-C): may have been paid, its budget place kept', async () => {
    const abandon = new AbortController();
    const s = sender(
      {
        maxTransactions: 1,
        abandonSignal: abandon.signal,
        transport: createFetchTransport({ signal: abandon.signal }),
      },
      silentUrl,
    );
    const onWire = s.send(input(1));
    await sleep(200);
    expect(s.started).toBe(1);
    s.cancel();
    abandon.abort();
    expect(await within(onWire, 5000)).toEqual({
      sent: false,
      reason: 'abandoned when the run was interrupted: the service may have been paid for it',
      mayHaveBeenPaid: true,
    });
    expect(s.abandoned).toBe(1);
    expect(s.spent).toBe(0);
  });

  it('a request sent whole that got no answer by the deadline: counted, never retried, its place kept', async () => {
    const s = sender(
      { maxTransactions: 1, transport: createFetchTransport({ timeoutMs: 200 }), concurrency: 1 },
      silentUrl,
    );
    const result = await s.send(input(1));
    expect(result).toMatchObject({ sent: true, paid: false, outcome: { kind: 'error' } });
    expect(s.unanswered).toBe(1);
    expect(s.attempts).toBe(1);
    // Its place in the budget is kept (the service may have billed it): nothing more may be sent.
    expect(await s.send(input(2))).toEqual({
      sent: false,
      reason: 'not sent: the transaction budget (--max-transactions 1) is spent',
    });
    expect(s.stopReason).toBe('budget');
  });

  it('a request that ended unpaid gives its budget place back to the next', async () => {
    const s = sender({ maxTransactions: 1 });
    expect(await s.send({ Phone: reserved('fault').phone })).toMatchObject({ sent: true, paid: false });
    expect(await s.send(input(1))).toMatchObject({ sent: true, paid: true });
    const third = await s.send(input(2));
    expect(third).toEqual({
      sent: false,
      reason: 'not sent: the transaction budget (--max-transactions 1) is spent',
    });
    expect(s.stopReason).toBe('budget');
  });
});
