// The retry policy as pure functions, and callOperation driven by a fake transport on a fake clock.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CallError,
  type CallOptions,
  callError,
  callOperation,
  DEFAULT_RETRY_POLICY,
  decideRetry,
  type ErrorCode,
  type HttpRequest,
  type HttpResponse,
  isRetryable,
  type RetryPolicy,
  retryDelayMs,
} from '../src/index.js';
import { KEY, op, SETTINGS } from './api.js';

const POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000, maxTotalMs: 120_000 };
const err = (code: ErrorCode, extra: Partial<CallError> = {}) => callError(code, code, extra);

describe('which errors retry', () => {
  it.each([
    ['allowance', true],
    ['server', true],
    ['network', true],
    ['bad-request', false],
    ['unauthorized', false],
    ['too-many-results', false],
    ['unexpected-status', false],
    ['bad-response', false],
    ['invalid-input', false],
    ['config', false],
  ] as const)('%s: %s', (code, retries) => {
    expect(isRetryable(err(code))).toBe(retries);
    expect(decideRetry(1, 0, err(code), POLICY, () => 0.5).retry).toBe(retries);
  });
});

describe('delay', () => {
  it('doubles with each attempt, jittered between half and all of the step', () => {
    expect(retryDelayMs(1, err('server'), POLICY, () => 0)).toBe(250);
    expect(retryDelayMs(1, err('server'), POLICY, () => 0.999999)).toBe(500);
    expect(retryDelayMs(2, err('server'), POLICY, () => 0)).toBe(500);
    expect(retryDelayMs(3, err('server'), POLICY, () => 0)).toBe(1000);
    expect(retryDelayMs(4, err('network'), POLICY, () => 0.5)).toBe(3000);
  });

  it('stays within [step/2, step] for any attempt and random draw, with step capped', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, r) => {
          const step = Math.min(POLICY.maxDelayMs, POLICY.baseDelayMs * 2 ** (n - 1));
          const delay = retryDelayMs(n, err('server'), POLICY, () => r);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(step / 2));
          expect(delay).toBeLessThanOrEqual(step);
        },
      ),
    );
  });

  it('uses Retry-After instead of the formula, honoured in full up to maxRetryAfterMs', () => {
    expect(retryDelayMs(1, err('allowance', { retryAfterMs: 7000 }), POLICY, () => 0)).toBe(7000);
    expect(retryDelayMs(4, err('allowance', { retryAfterMs: 0 }), POLICY, () => 1)).toBe(0);
    // Longer than the backoff cap but within the Retry-After cap (60 s by default): waited in full.
    expect(retryDelayMs(1, err('allowance', { retryAfterMs: 45_000 }), POLICY, () => 0)).toBe(45_000);
  });

  it('the default policy is bounded: 5 attempts within two minutes, Retry-After up to 60 s', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      maxAttempts: 5,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      maxTotalMs: 120_000,
      maxRetryAfterMs: 60_000,
    });
  });
});

describe('decideRetry', () => {
  it('stops at the attempt cap', () => {
    expect(decideRetry(4, 0, err('server'), POLICY, () => 0)).toEqual({ retry: true, delayMs: 2000 });
    expect(decideRetry(5, 0, err('server'), POLICY, () => 0)).toEqual({ retry: false });
  });

  it('stops when the wait would pass the total time cap', () => {
    expect(decideRetry(1, 119_750, err('server'), POLICY, () => 0)).toEqual({ retry: true, delayMs: 250 });
    expect(decideRetry(1, 119_751, err('server'), POLICY, () => 0)).toEqual({ retry: false });
    expect(decideRetry(1, 100_000, err('allowance', { retryAfterMs: 30_000 }), POLICY, () => 0)).toEqual({
      retry: false,
    });
  });
});

describe('a Retry-After longer than the cap', () => {
  it('is not waited for: the decision says so and when to resume', () => {
    const error = err('allowance', { status: 429, retryAfterMs: 99_999_000 });
    expect(decideRetry(1, 0, error, POLICY, () => 0, 1_000)).toEqual({
      retry: false,
      waitTooLong: { retryAfterMs: 99_999_000, resumeAt: 99_999_000 + 1_000 },
    });
  });

  it('follows the policy: 60 s is waited for by default, 61 s is not; a policy may allow more', () => {
    expect(
      decideRetry(1, 0, err('server', { retryAfterMs: 60_000 }), DEFAULT_RETRY_POLICY, () => 0, 0),
    ).toEqual({
      retry: true,
      delayMs: 60_000,
    });
    expect(
      decideRetry(1, 0, err('server', { retryAfterMs: 61_000 }), DEFAULT_RETRY_POLICY, () => 0, 0),
    ).toEqual({
      retry: false,
      waitTooLong: { retryAfterMs: 61_000, resumeAt: 61_000 },
    });
    const patient = { ...POLICY, maxRetryAfterMs: 600_000, maxTotalMs: 3_600_000 };
    expect(decideRetry(1, 0, err('server', { retryAfterMs: 300_000 }), patient, () => 0, 0)).toEqual({
      retry: true,
      delayMs: 300_000,
    });
  });

  it('makes sendWithRetry stop at once with the error, its retryAfterMs and the resume time', async () => {
    const h = harness([status(429, { 'retry-after': '99999' })]);
    const report = await callOperation(op('email-verify'), { Email: 'a@b.co' }, h.options);
    expect(report.attempts).toBe(1);
    expect(h.sleeps).toEqual([]);
    expect(report.outcome).toMatchObject({
      kind: 'error',
      error: { code: 'allowance', retryAfterMs: 99_999_000 },
    });
    expect(report.waitTooLong).toEqual({ retryAfterMs: 99_999_000, resumeAt: 1_000_000 + 99_999_000 });
  });

  it('honours a Retry-After given as an HTTP date, on the clock passed in', async () => {
    const h = harness([status(429, { 'retry-after': new Date(1_000_000 + 2_000).toUTCString() }), OK]);
    const report = await callOperation(op('email-verify'), { Email: 'a@b.co' }, h.options);
    expect(report.outcome.kind).toBe('record');
    expect(h.sleeps).toEqual([2_000]);
  });
});

describe('never retried', () => {
  it('a redirect: one request, nothing resent', async () => {
    const h = harness([status(307, { location: 'http://evil.test/x' }), OK]);
    const report = await callOperation(op('email-verify'), { Email: 'a@b.co' }, h.options);
    expect(report.attempts).toBe(1);
    expect(h.sent).toHaveLength(1);
    expect(report.outcome).toMatchObject({ kind: 'error', error: { code: 'redirect', status: 307 } });
  });

  it.each([
    ['cut', status(200, {}, '{"Email":"a@'), 'cut'],
    ['too big', status(200, {}, '{"Email":'), 'too-big'],
    ['not JSON', status(200, {}, '<html>'), undefined],
  ] as const)('an unreadable 200 (%s): paid, so not bought again', async (_, response, bodyProblem) => {
    const h = harness([bodyProblem ? { ...response, bodyProblem } : response, OK]);
    const report = await callOperation(op('email-verify'), { Email: 'a@b.co' }, h.options);
    expect(report.attempts).toBe(1);
    expect(h.sent).toHaveLength(1);
    expect(report.outcome.kind).toBe('unreadable');
  });
});

/** A transport that answers from a script and a clock that moves only when told to. */
function harness(answers: Array<HttpResponse | Error>, opts: { latencyMs?: number } = {}) {
  let now = 1_000_000;
  const sleeps: number[] = [];
  const sent: HttpRequest[] = [];
  const starts: number[] = [];
  const options: CallOptions = {
    settings: SETTINGS,
    policy: POLICY,
    random: () => 0,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    transport: async (request) => {
      sent.push(request);
      starts.push(now - 1_000_000);
      now += opts.latencyMs ?? 0;
      const answer = answers.shift();
      if (answer === undefined) throw new Error('the test sent more requests than it scripted');
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return { options, sleeps, sent, starts };
}

const status = (code: number, headers: Record<string, string> = {}, body = ''): HttpResponse => ({
  status: code,
  headers,
  body,
});
const OK = status(200, {}, JSON.stringify({ Email: 'a@b.co', Result: 'valid' }));

describe('callOperation', () => {
  it('sends once and reads the record', async () => {
    const h = harness([OK]);
    const report = await callOperation(op('email-verify'), { Email: ' a@B.CO ' }, h.options);
    expect(report.outcome).toEqual({
      kind: 'record',
      status: 200,
      record: { Email: 'a@b.co', Result: 'valid' },
      extra: {},
      mismatches: [],
      raw: OK.body,
    });
    expect(report.attempts).toBe(1);
    expect(h.sleeps).toEqual([]);
    expect(h.sent[0]).toEqual({
      method: 'POST',
      url: 'https://v2.example.test/v2/verify/email',
      headers: { 'x-api-key': KEY, 'Content-Type': 'application/json' },
      body: '{"Email":"a@b.co"}',
    });
  });

  it('retries 500 and 429, honouring Retry-After, then succeeds', async () => {
    const h = harness([status(500), status(429, { 'retry-after': '3' }), status(503), OK]);
    const retries: number[] = [];
    const report = await callOperation(
      op('email-verify'),
      { Email: 'a@b.co' },
      {
        ...h.options,
        onRetry: ({ delayMs }) => retries.push(delayMs),
      },
    );
    expect(report.outcome.kind).toBe('record');
    expect(report.attempts).toBe(4);
    expect(h.sleeps).toEqual([250, 3000, 1000]);
    expect(retries).toEqual(h.sleeps);
  });

  it.each([400, 401, 440, 404])('does not retry %i', async (code) => {
    const h = harness([status(code)]);
    const report = await callOperation(op('email-verify'), { Email: 'a@b.co' }, h.options);
    expect(report.attempts).toBe(1);
    expect(report.outcome).toMatchObject({ kind: 'error', error: { status: code } });
    expect(h.sleeps).toEqual([]);
  });

  it('does not retry 204 or a 200 with a bad body', async () => {
    const h = harness([status(204), status(200, {}, 'not json')]);
    expect(await callOperation(op('email-verify'), { Email: 'a@b.co' }, h.options)).toMatchObject({
      attempts: 1,
      outcome: { kind: 'no-match' },
    });
    expect(await callOperation(op('email-verify'), { Email: 'a@b.co' }, h.options)).toMatchObject({
      attempts: 1,
      outcome: { kind: 'unreadable', status: 200, raw: 'not json', reason: 'the body is not JSON' },
    });
  });

  it('retries network failures up to the attempt cap, and says so', async () => {
    const down = new Error('connect ECONNREFUSED');
    const h = harness([down, down, down, down, down]);
    const report = await callOperation(op('phone-lookup'), { Phone: '5550102030' }, h.options);
    expect(report.attempts).toBe(5);
    expect(h.sent).toHaveLength(5);
    expect(h.sleeps).toEqual([250, 500, 1000, 2000]);
    expect(report.outcome).toEqual({
      kind: 'error',
      error: {
        code: 'network',
        message: 'Could not reach the service at v3.example.test: connect ECONNREFUSED',
      },
    });
  });

  it('starts no attempt later than the total time cap after the first began', async () => {
    const h = harness(
      Array.from({ length: 5 }, () => status(500)),
      { latencyMs: 50_000 },
    );
    const report = await callOperation(op('email-verify'), { Email: 'a@b.co' }, h.options);
    // Attempts start at 0, 50.25 s and 100.75 s; a fourth would start at 151.75 s.
    expect(report.attempts).toBe(3);
    expect(h.sleeps).toEqual([250, 500]);
    expect(h.starts).toEqual([0, 50_250, 100_750]);
    expect(report.outcome).toMatchObject({ kind: 'error', error: { code: 'server' } });
  });

  it('stops when cancelled', async () => {
    const h = harness([status(500), status(500)]);
    let cancelled = false;
    const report = await callOperation(
      op('email-verify'),
      { Email: 'a@b.co' },
      {
        ...h.options,
        onRetry: () => {
          cancelled = true;
        },
        isCancelled: () => cancelled,
      },
    );
    expect(report.attempts).toBe(1);
    expect(h.sent).toHaveLength(1);
  });

  it('refuses invalid input without sending anything', async () => {
    const h = harness([]);
    const report = await callOperation(op('phone-lookup'), { Phone: '555' }, h.options);
    expect(report).toEqual({
      attempts: 0,
      request: undefined,
      outcome: { kind: 'error', error: { code: 'invalid-input', message: 'Phone must be 10 digits; got 3' } },
    });
    expect(h.sent).toEqual([]);
  });

  it('refuses a plain-HTTP base without sending anything, and without the key in the message', async () => {
    const h = harness([]);
    const report = await callOperation(
      op('email-verify'),
      { Email: 'a@b.co' },
      {
        ...h.options,
        settings: { ...SETTINGS, baseUrl: 'http://api.example.com' },
      },
    );
    expect(report.outcome).toMatchObject({ kind: 'error', error: { code: 'config' } });
    expect(JSON.stringify(report)).not.toContain(KEY);
    expect(h.sent).toEqual([]);
  });

  it('keeps the key out of every outcome', async () => {
    const answers = [status(401), status(400), status(440), status(500), new Error('down'), OK];
    for (const answer of answers) {
      const h = harness([answer], {});
      const report = await callOperation(
        op('email-verify'),
        { Email: 'a@b.co' },
        {
          ...h.options,
          policy: { ...POLICY, maxAttempts: 1 },
        },
      );
      expect(JSON.stringify(report.outcome)).not.toContain(KEY);
    }
  });
});
