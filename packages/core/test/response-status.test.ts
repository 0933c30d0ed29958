// The response reader on other statuses: each status code of the Errors table, redirects,
// Retry-After, network failures, and which outcomes are billed.
import { describe, expect, it } from 'vitest';
import {
  type CallError,
  isPaid,
  networkError,
  type Outcome,
  PAID_STATUSES,
  parseHttpDate,
  parseRetryAfter,
  readResponse,
} from '../src/index.js';
import { op } from './api.js';
import { json } from './response-fixtures.js';

function errorOf(outcome: Outcome): CallError {
  if (outcome.kind !== 'error') throw new Error(`expected an error, got ${outcome.kind}`);
  return outcome.error;
}

describe('other statuses', () => {
  it('reads 204 as no match, not an error', () => {
    expect(readResponse(op('phone-lookup'), { status: 204, headers: {}, body: '' })).toEqual({
      kind: 'no-match',
      status: 204,
    });
  });

  it.each([
    [400, 'bad-request', /required field is missing or not valid \(400\)/],
    [401, 'unauthorized', /API key was refused \(401\)/],
    [429, 'allowance', /allowance for this API key is used up \(429\)/],
    [440, 'too-many-results', /Too many records match \(440\)/],
    [500, 'server', /service had an error \(500\)/],
    [502, 'server', /service had an error \(502\)/],
    [503, 'server', /service had an error \(503\)/],
    [201, 'unexpected-status', /unexpected status \(201\)/],
    [404, 'unexpected-status', /unexpected status \(404\)/],
    [418, 'unexpected-status', /unexpected status \(418\)/],
  ] as const)('reads %i as %s', (status, code, message) => {
    const error = errorOf(readResponse(op('email-verify'), json(status, '{"error":"x"}')));
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.message).toMatch(message);
    expect(error.retryAfterMs).toBeUndefined();
  });

  it.each([301, 302, 303, 307, 308])(
    'reads %i as a redirect naming the status and the Location host',
    (status) => {
      const error = errorOf(
        readResponse(
          op('email-verify'),
          json(status, '', { location: 'http://user:pw@evil.test:8080/v2/x?k=1' }),
        ),
      );
      expect(error).toEqual({
        code: 'redirect',
        status,
        message: `The service answered ${status} (a redirect) to evil.test:8080. Redirects are not followed, so nothing was sent there; check the base URL.`,
      });
      expect(error.message).not.toContain('pw');
    },
  );

  it('reads a redirect with a relative or missing Location', () => {
    expect(
      errorOf(readResponse(op('email-verify'), json(307, '', { location: '/elsewhere' }))).message,
    ).toContain('307 (a redirect) to another path on the same host');
    expect(errorOf(readResponse(op('email-verify'), json(302, ''))).message).toContain(
      '302 (a redirect) without saying where',
    );
  });

  it('reads a 429 with Retry-After in seconds', () => {
    const error = errorOf(readResponse(op('email-verify'), json(429, '', { 'retry-after': '120' })));
    expect(error).toMatchObject({ code: 'allowance', status: 429, retryAfterMs: 120_000 });
  });

  it('reads a 429 without Retry-After as no hint, and a dated one only with a clock', () => {
    expect(errorOf(readResponse(op('email-verify'), json(429, ''))).retryAfterMs).toBeUndefined();
    const dated = json(429, '', { 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' });
    expect(errorOf(readResponse(op('email-verify'), dated))).not.toHaveProperty('retryAfterMs');
    const now = Date.UTC(2026, 9, 21, 7, 27, 58);
    expect(errorOf(readResponse(op('email-verify'), dated, now)).retryAfterMs).toBe(2000);
  });

  it('reads Retry-After on a 503 too, and ignores it on a 400', () => {
    expect(
      errorOf(readResponse(op('email-verify'), json(503, '', { 'retry-after': '2' }))).retryAfterMs,
    ).toBe(2000);
    expect(
      errorOf(readResponse(op('email-verify'), json(400, '', { 'retry-after': '2' }))).retryAfterMs,
    ).toBeUndefined();
  });

  it('parses Retry-After values in seconds', () => {
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter(' 3 ')).toBe(3000);
    expect(parseRetryAfter('1.5')).toBe(1500);
    expect(parseRetryAfter('99999')).toBe(99_999_000);
    expect(parseRetryAfter('-1')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it('parses Retry-After as an HTTP date in each of the three forms, a past date meaning now', () => {
    const now = Date.UTC(1994, 10, 6, 8, 49, 30);
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Sun Nov  6 08:49:37 1994', now)).toBe(7000);
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT')).toBeUndefined();
    expect(parseRetryAfter('Sun, 06 Foo 1994 08:49:37 GMT', now)).toBeUndefined();
    expect(parseRetryAfter('Sun, 32 Nov 1994 08:49:37 GMT', now)).toBeUndefined();
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
  });

  it('parses hostile Retry-After values quickly', () => {
    const started = performance.now();
    for (const v of ['1'.repeat(100_000), `Sun, ${'0'.repeat(100_000)}`, ` ${' '.repeat(100_000)}1`])
      expect(parseRetryAfter(v, 0)).toBeUndefined();
    // Generous for a busy machine; a backtracking pattern takes seconds on 100 KB.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('names the host of a network failure, not the full address', () => {
    const error = errorOf(networkError('https://api.example.com/v2/verify/email', new Error('ECONNREFUSED')));
    expect(error).toEqual({
      code: 'network',
      message: 'Could not reach the service at api.example.com: ECONNREFUSED',
    });
  });
});

describe('billing', () => {
  it('counts 200 (readable or not), 204 and 440, not redirects or errors before the operation ran', () => {
    const outcome = (status: number, body = '{}') =>
      readResponse(op('email-verify'), { status, headers: {}, body });
    expect(isPaid(outcome(200))).toBe(true);
    expect(isPaid(outcome(204))).toBe(true);
    expect(isPaid(outcome(440))).toBe(true);
    expect(outcome(200, 'nope').kind).toBe('unreadable');
    expect(isPaid(outcome(200, 'nope'))).toBe(true);
    expect(
      isPaid(
        readResponse(op('email-verify'), { status: 200, headers: {}, body: '{"Em', bodyProblem: 'cut' }),
      ),
    ).toBe(true);
    for (const status of [301, 302, 307, 308, 400, 401, 404, 429, 500, 503])
      expect(isPaid(outcome(status)), String(status)).toBe(false);
    expect(isPaid(networkError('https://x.test', 'down'))).toBe(false);
  });

  it('derives the paid statuses and isPaid from one table', () => {
    expect([...PAID_STATUSES].sort()).toEqual([200, 204, 440]);
    for (const status of PAID_STATUSES)
      expect(isPaid({ kind: 'error', error: { code: 'too-many-results', message: '', status } })).toBe(true);
  });
});
