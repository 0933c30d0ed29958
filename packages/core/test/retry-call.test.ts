// callOperation driven by a fake transport on a fake clock: retries, Retry-After, what is never
// retried, and what is refused before anything is sent.
import { describe, expect, it } from 'vitest';
import {
  type CallOptions,
  callOperation,
  DEFAULT_RETRY_POLICY,
  decideRetry,
  type HttpRequest,
  type HttpResponse,
} from '../src/index.js';
import { KEY, op, SETTINGS } from './api.js';
import { err, POLICY } from './retry-fixtures.js';

describe('a Retry-After longer than the cap', () => {
  it('is not waited for: the decision says so and when to resume', () => {
    const error = err('allowance', { status: 429, retryAfterMs: 99_999_000 });
    expect(decideRetry(1, 0, error, POLICY, () => 0, 1_000)).toEqual({
      retry: false,
      waitTooLong: { retryAfterMs: 99_999_000, resumeAt: 99_999_000 + 1_000, maxRetryAfterMs: 60_000 },
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
      waitTooLong: { retryAfterMs: 61_000, resumeAt: 61_000, maxRetryAfterMs: 60_000 },
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
    expect(report.waitTooLong).toEqual({
      retryAfterMs: 99_999_000,
      resumeAt: 1_000_000 + 99_999_000,
      maxRetryAfterMs: 60_000,
    });
  });

  it('tells onWaitTooLong what the report then says', async () => {
    const h = harness([status(429, { 'retry-after': '61' })]);
    const told: unknown[] = [];
    const report = await callOperation(
      op('email-verify'),
      { Email: 'a@b.co' },
      {
        ...h.options,
        onWaitTooLong: (wait) => told.push(wait),
      },
    );
    expect(told).toEqual([{ retryAfterMs: 61_000, resumeAt: 1_000_000 + 61_000, maxRetryAfterMs: 60_000 }]);
    expect(report.waitTooLong).toEqual(told[0]);
  });

  it('is reported by a call whose run stopped meanwhile; a wait within the cap is not', async () => {
    const h = harness([status(429, { 'retry-after': '61' })]);
    const stopped = { ...h.options, isCancelled: () => true };
    const report = await callOperation(op('email-verify'), { Email: 'a@b.co' }, stopped);
    expect(report.waitTooLong?.retryAfterMs).toBe(61_000);
    const told: unknown[] = [];
    const within = harness([status(429, { 'retry-after': '60' }), OK]);
    const waited = await callOperation(
      op('email-verify'),
      { Email: 'a@b.co' },
      {
        ...within.options,
        onWaitTooLong: (wait) => told.push(wait),
      },
    );
    expect(waited).toMatchObject({ attempts: 2, outcome: { kind: 'record' } });
    expect(waited.waitTooLong).toBeUndefined();
    expect(told).toEqual([]);
    expect(within.sleeps).toEqual([60_000]);
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
