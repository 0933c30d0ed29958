// One rule, decided in one place: whether a Retry-After is too long to wait for is core's
// decideRetry's to say (the policy's maxRetryAfterMs), and a single call (core's callOperation, as
// the CLI, the MCP server and VS Code make one) and the bulk Sender both obey that answer. The Sender
// works nothing out itself: it is told through sendWithRetry's onWaitTooLong. Over real HTTP to the
// sandbox, whose reserved "allowance" input is always refused with 429 and the Retry-After we set.
import { callOperation, DEFAULT_RETRY_POLICY, type RetryPolicy } from '@enrich/core';
import { DEMO_KEY } from '@enrich/sandbox';
import { describe, expect, it } from 'vitest';
import { createHttpTransport } from '../src/sending/http-transport.js';
import { Sender } from '../src/sending/sender.js';
import { reserved, useSandboxServer } from './fixtures.js';
import { op, phone } from './sandbox-run.js';

const at = useSandboxServer();
const CAP_MS = 1000;
const policy: RetryPolicy = {
  ...DEFAULT_RETRY_POLICY,
  maxAttempts: 2,
  baseDelayMs: 10,
  maxRetryAfterMs: CAP_MS,
};
const refused = { Phone: reserved('allowance').phone };
const settings = () => ({ apiKey: DEMO_KEY, baseUrl: at.server.url, baseUrlV3: at.server.url });

/** A single call, its waits recorded rather than slept. */
async function singleCall() {
  const slept: number[] = [];
  const transport = createHttpTransport({ timeoutMs: 5000 });
  const report = await callOperation(op, refused, {
    transport,
    settings: settings(),
    policy,
    sleep: async (ms) => {
      slept.push(ms);
    },
    now: Date.now,
  });
  return { report, slept };
}

function sender(): Sender {
  return new Sender({
    op,
    settings: settings(),
    transport: createHttpTransport({ timeoutMs: 5000 }),
    policy,
    concurrency: 1,
    sleep: async () => undefined,
    now: Date.now,
  });
}

describe('a Retry-After as long as the cap (1 s of 1 s)', () => {
  it('is waited for by a single call: asked again, no wait too long', async () => {
    at.server.sandbox.configure({ retryAfterSeconds: 1 });
    const { report, slept } = await singleCall();
    expect(report.attempts).toBe(2);
    expect(slept).toEqual([CAP_MS]);
    expect(report.waitTooLong).toBeUndefined();
  });

  it('is waited for by the bulk Sender: asked again, no time to resume', async () => {
    at.server.sandbox.configure({ retryAfterSeconds: 1 });
    const s = sender();
    const started = Date.now();
    await s.send(refused);
    expect(s.throttled).toBe(2);
    // Every request waited with the 429 (a fixed number): the second attempt left a second later.
    expect(Date.now() - started).toBeGreaterThanOrEqual(CAP_MS - 50);
    expect(s.resumeAt).toBeUndefined();
  });
});

describe('a Retry-After longer than the cap (2 s of 1 s)', () => {
  it('is not waited for by a single call: one attempt, and the report says so', async () => {
    at.server.sandbox.configure({ retryAfterSeconds: 2 });
    const before = Date.now();
    const { report, slept } = await singleCall();
    expect(report.attempts).toBe(1);
    expect(slept).toEqual([]);
    expect(report.waitTooLong).toMatchObject({ retryAfterMs: 2000, maxRetryAfterMs: CAP_MS });
    expect(report.waitTooLong?.resumeAt).toBeGreaterThanOrEqual(before + 2000);
  });

  it('stops the bulk Sender: one attempt, the time to resume, and nothing more sent', async () => {
    at.server.sandbox.configure({ retryAfterSeconds: 2 });
    const s = sender();
    const before = Date.now();
    const [first, second] = await Promise.all([s.send(refused), s.send({ Phone: phone(1) })]);
    expect(first).toMatchObject({ sent: true, paid: false });
    expect(s.throttled).toBe(1);
    expect(s.stopReason).toBe('allowance');
    expect(s.resumeAt).toBeGreaterThanOrEqual(before + 2000);
    expect(s.resumeAt).toBeLessThanOrEqual(Date.now() + 2000);
    expect(second).toMatchObject({ sent: false });
    if (!second.sent)
      expect(second.reason).toMatch(/^not sent: the service asked to wait 2 s .* longer than the 1 s/);
    expect(at.server.sandbox.stats().requests).toBe(1);
  });
});
