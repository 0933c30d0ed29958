// Every knob is checked by one rule, whichever way it is set: a flag or its environment variable
// (the command as a process: exit 2 and one line naming the flag and the rule, never a stack
// trace), the admin path's configure over real HTTP (a 400 naming the field and the rule, nothing
// changed), or code (a RangeError). A latency past what a timer can hold is refused, not answered
// at once; a delay that grows past it in the capacity's queue is still waited for.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ADMIN_HEADER,
  createSandbox,
  DEMO_KEY,
  MISBEHAVE_MODES,
  type SandboxServer,
  startSandboxServer,
} from '../src/index.js';
import { runSandboxCommand } from './run-command.js';

/** One line on standard error, and no trace of the code that refused it. */
function oneLine(err: string): string {
  expect(err).not.toMatch(/\n\s+at /);
  expect(err.trim().split('\n')).toHaveLength(1);
  return err.trim();
}

describe('the command refuses a bad flag with exit 2 and one line naming the flag and the rule', () => {
  it.each([
    [['--latency', '-5'], '--latency takes a number of milliseconds from 0 to 3600000 (an hour); got "-5"'],
    [
      ['--latency', '1e12'],
      '--latency takes a number of milliseconds from 0 to 3600000 (an hour); got "1e12"',
    ],
    [['--port', '99999'], '--port takes a whole number from 0 to 65535; got "99999"'],
    [['--fault-rate', '2'], '--fault-rate takes a number from 0 to 1; got "2"'],
    [['--allowance', '-1'], '--allowance takes a whole number, at least 0; got "-1"'],
    [['--allowance-window', '-5'], '--allowance-window takes a number of seconds, at least 0; got "-5"'],
    [['--rate', '-1'], '--rate takes a number of requests per second, at least 0; got "-1"'],
    [['--burst', '0.5'], '--burst takes a number, at least 1; got "0.5"'],
    [['--capacity', '2.5'], '--capacity takes a whole number, at least 1; got "2.5"'],
    [
      ['--latency-p99', '-1'],
      '--latency-p99 takes a number of milliseconds from 0 to 3600000 (an hour); got "-1"',
    ],
    [['--latency=abc'], '--latency takes a number of milliseconds from 0 to 3600000 (an hour); got "abc"'],
    [['--latency-sigma', '4'], '--latency-sigma takes a number from 0 to 3; got "4"'],
    [
      ['--latency-sigma', '1'],
      '--latency-sigma above 0 needs --latency (the median) above 0, as a log-normal has no median of 0; got 1 with a median of 0',
    ],
    [
      ['--latency', '120', '--latency-sigma', '1', '--latency-p99', '300'],
      "--latency-sigma and --latency-p99 say the latency's spread two ways: give one, or two that agree (σ 1 at a median of 120 is a p99 of 1228.857); got a p99 of 300",
    ],
    [['--overload', 'drop'], '--overload takes "queue" or "503"; got "drop"'],
    [['--window-limit', '1.5'], '--window-limit takes a whole number of requests, at least 0; got "1.5"'],
    [['--window-ms', '0'], '--window-ms takes a number of milliseconds, at least 1; got "0"'],
    [['--rate-headers=1'], '--rate-headers takes no value'],
    [['--latency'], '--latency needs a value: --latency MS'],
    [['--bogus', '1'], 'unknown option --bogus (see --help)'],
  ])(
    '%j',
    async (args, message) => {
      const run = await runSandboxCommand(args, {});
      expect(run.code).toBe(2);
      expect(oneLine(run.err)).toBe(`enrich-sandbox: ${message}`);
      expect(run.out).toBe('');
    },
    30_000,
  );

  it('an environment variable is named by its own name', async () => {
    const run = await runSandboxCommand([], { SANDBOX_FAULT_RATE: '2' });
    expect(run.code).toBe(2);
    expect(oneLine(run.err)).toBe('enrich-sandbox: SANDBOX_FAULT_RATE takes a number from 0 to 1; got "2"');
  }, 30_000);

  it.each([
    [{ SANDBOX_RATE_HEADERS: 'yes' }, 'SANDBOX_RATE_HEADERS takes 1 (on) or 0 (off); got "yes"'],
    [{ SANDBOX_OVERLOAD: '429' }, 'SANDBOX_OVERLOAD takes "queue" or "503"; got "429"'],
    [
      { SANDBOX_LATENCY_MS: '3000000', SANDBOX_LATENCY_SIGMA: '1' },
      'SANDBOX_LATENCY_SIGMA 1 at a median of 3000000 makes a p99 of 30721421, past 3600000 (an hour)',
    ],
  ])(
    'a switch, a choice and a σ from the environment: %j',
    async (env, message) => {
      const run = await runSandboxCommand([], env);
      expect(run.code).toBe(2);
      expect(oneLine(run.err)).toBe(`enrich-sandbox: ${message}`);
    },
    30_000,
  );
});

describe('configure over HTTP refuses a bad field with a 400 naming it and the rule, and changes nothing', () => {
  let server: SandboxServer;
  beforeAll(async () => {
    server = await startSandboxServer({ port: 0 });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.sandbox.reset();
    server.sandbox.configure({ latencyMs: 0, faultRate: 0, misbehave: [] });
  });

  const configure = async (body: unknown) => {
    const response = await fetch(`${server.url}/__sandbox/configure`, {
      method: 'POST',
      headers: { [ADMIN_HEADER]: server.adminToken, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };

  it.each([
    [{ faultRate: 2 }, 'faultRate takes a number from 0 to 1; got 2'],
    [{ faultRate: -0.5 }, 'faultRate takes a number from 0 to 1; got -0.5'],
    [{ latencyMs: -5 }, 'latencyMs takes a number of milliseconds from 0 to 3600000 (an hour); got -5'],
    [
      { latencyMs: 1e12 },
      'latencyMs takes a number of milliseconds from 0 to 3600000 (an hour); got 1000000000000',
    ],
    [{ allowance: -1 }, 'allowance takes a whole number, at least 0, or null for no limit; got -1'],
    [
      { allowanceWindowMs: -1 },
      'allowanceWindowMs takes a number of milliseconds, at least 0, or null for never; got -1',
    ],
    [{ retryAfterSeconds: -1 }, 'retryAfterSeconds takes a whole number of seconds, at least 0; got -1'],
    [{ latencyMs: null }, 'latencyMs takes a number of milliseconds from 0 to 3600000 (an hour); got null'],
    [{ latencySigma: 4 }, 'latencySigma takes a number from 0 to 3, or null for 0 (a fixed latency); got 4'],
    [
      { latencySigma: 1 },
      'latencySigma above 0 needs latencyMs (the median) above 0, as a log-normal has no median of 0; got 1 with a median of 0',
    ],
    [{ overload: 'drop' }, 'overload takes "queue" or "503"; got "drop"'],
    [{ overload: 503 }, 'overload takes "queue" or "503"; got 503'],
    [{ rateHeaders: 'yes' }, 'rateHeaders takes true or false; got "yes"'],
    [{ rateRetryAfter: null }, 'rateRetryAfter takes true or false; got null'],
    [{ windowMs: 0 }, 'windowMs takes a number of milliseconds, at least 1; got 0'],
    [
      { windowLimit: -1 },
      'windowLimit takes a whole number of requests, at least 0, or null for no limit; got -1',
    ],
    [
      { misbehave: 42 },
      'misbehave takes a mode, modes separated by commas, or an array of modes ([] for none); got 42',
    ],
    [
      { misbehave: [42] },
      'misbehave takes a mode, modes separated by commas, or an array of modes ([] for none); got [42]',
    ],
    [
      { misbehave: 'nope' },
      `misbehave: Unknown misbehave mode "nope"; the modes are ${MISBEHAVE_MODES.join(', ')}`,
    ],
    [
      { latencyMS: 5 },
      'configure has no knob "latencyMS"; the knobs are latencyMs, latencyP99Ms, latencySigma, rate, burst, rateRetryAfter, windowLimit, windowMs, rateHeaders, capacity, overload, faultRate, allowance, allowanceWindowMs, retryAfterSeconds, misbehave',
    ],
  ])('%j', async (body, message) => {
    const before = server.sandbox.knobs();
    const answer = await configure(body);
    expect(answer).toEqual({ status: 400, json: { status: 400, error: message } });
    expect(server.sandbox.knobs()).toEqual(before);
  });

  it('a call with one bad field applies none of its fields', async () => {
    const answer = await configure({ latencyMs: 20, faultRate: 2 });
    expect(answer.status).toBe(400);
    expect(server.sandbox.knobs()).toMatchObject({ latencyMs: 0, faultRate: 0 });
  });

  it('a p99 below the median is refused as the command refuses it', async () => {
    await configure({ latencyMs: 50 });
    const answer = await configure({ latencyP99Ms: 20 });
    expect(answer.json.error).toBe(
      'latencyP99Ms must be above latencyMs (the median, 50) with the median above 0, or equal to it for a fixed latency; got 20',
    );
    expect(server.sandbox.knobs()).toMatchObject({ latencyMs: 50, latencyP99Ms: 50 });
  });

  it('after refusals, good values still apply and the server still answers', async () => {
    await configure({ misbehave: 42 });
    const good = await configure({ faultRate: 0.25, misbehave: 'other-case' });
    expect(good.status).toBe(200);
    expect(good.json).toMatchObject({ faultRate: 0.25, misbehave: ['other-case'] });
    const stats = await fetch(`${server.url}/__sandbox/stats`, { headers: { 'x-api-key': DEMO_KEY } });
    expect(stats.status).toBe(200);
  });
});

describe('in code, the same rules throw', () => {
  it('createSandbox and configure() throw a RangeError naming the knob and the rule', () => {
    expect(() => createSandbox({ latencyMs: 1e12 })).toThrow(
      new RangeError(
        'latencyMs takes a number of milliseconds from 0 to 3600000 (an hour); got 1000000000000',
      ),
    );
    const sandbox = createSandbox();
    expect(() => sandbox.configure({ faultRate: 2 })).toThrow(
      new RangeError('faultRate takes a number from 0 to 1; got 2'),
    );
    expect(sandbox.knobs().faultRate).toBe(0);
    expect(() => createSandbox({ overload: 'drop' as never })).toThrow(
      new RangeError('overload takes "queue" or "503"; got "drop"'),
    );
    expect(() => sandbox.configure({ rateHeaders: 1 as never, windowLimit: 5 })).toThrow(
      new RangeError('rateHeaders takes true or false; got 1'),
    );
    expect(sandbox.knobs()).toMatchObject({ rateHeaders: false, windowLimit: Number.POSITIVE_INFINITY });
    // Infinity is how code says "no limit", and what knobs() gives back for one.
    sandbox.configure({ rate: Number.POSITIVE_INFINITY, allowance: Number.POSITIVE_INFINITY });
    sandbox.configure(sandbox.knobs());
  });
});

describe('a delay longer than a timer can hold', () => {
  it('is waited for, not answered at once: a capacity of 1 with an hour each makes the 600th wait 25 days', async () => {
    const server = await startSandboxServer({ port: 0, capacity: 1, latencyMs: 3_600_000 });
    try {
      const request = {
        method: 'POST',
        path: '/v3/lookup/phone',
        headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ Phone: '5550102030' }),
      };
      // 599 in the queue, in process: the next one's wait is 599 hours, past 2^31 - 1 ms (24.8 days).
      for (let i = 0; i < 599; i++) server.sandbox.handle(request);
      const answered = await fetch(`${server.url}${request.path}`, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        signal: AbortSignal.timeout(1000),
      }).then(
        (response) => response.status,
        (error: Error) => error.name,
      );
      expect(answered).toBe('TimeoutError');
    } finally {
      await server.close();
    }
  });
});
