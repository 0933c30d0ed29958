// The shared vocabulary: each table gives what the clients print, store and decide from.
import { describe, expect, it } from 'vitest';
import {
  EXIT_CODES,
  FIELD_KINDS,
  getOperation,
  isRetryable,
  looksLikeFormula,
  neutraliseFormula,
  notAsDocumented,
  PAID_STATUSES,
  PERMITTED_USE,
  ROW_OUTCOMES,
  readResponse,
  rowStatusOf,
  rowStatusText,
  STATUS_TABLE,
  STOP_REASONS,
  statusInfo,
} from '../src/index.js';

describe('row outcomes', () => {
  it('spells each status as the CLI has always written it', () => {
    expect(rowStatusText('ok')).toBe('ok');
    expect(rowStatusText('ok', notAsDocumented(2))).toBe('ok (2 fields not as documented)');
    expect(rowStatusText('ok', notAsDocumented(1))).toBe('ok (1 field not as documented)');
    expect(rowStatusText('ok', notAsDocumented(0))).toBe('ok');
    expect(rowStatusText('no-match')).toBe('no match');
    expect(rowStatusText('no-match', 'Too many records match (440).')).toBe(
      'no match: Too many records match (440).',
    );
    expect(rowStatusText('invalid', 'Phone must be 10 digits; got 9')).toBe(
      'invalid: Phone must be 10 digits; got 9',
    );
    expect(rowStatusText('blank', 'blank row')).toBe('invalid: blank row');
    expect(rowStatusText('error', 'not sent: the run was interrupted')).toBe(
      'error: not sent: the run was interrupted',
    );
    expect(rowStatusText('unreadable', 'the body is not JSON')).toBe(
      'paid, unreadable: the body is not JSON',
    );
  });

  it('gives every answer its kind of row and status, the same in every client: a 440 is a no match', () => {
    const op = getOperation('phone-lookup');
    const answer = (status: number, body = '') => readResponse(op, { status, headers: {}, body });
    expect(rowStatusOf(answer(204))).toEqual({ kind: 'no-match', status: 'no match' });
    expect(rowStatusOf(answer(440, '{}'))).toEqual({
      kind: 'no-match',
      status: `no match: ${statusInfo(440).message}`,
    });
    expect(rowStatusOf(answer(500, '{}'))).toEqual({
      kind: 'error',
      status: `error: ${statusInfo(500).message}`,
    });
    expect(rowStatusOf(answer(200, 'not json'))).toEqual({
      kind: 'unreadable',
      status: 'paid, unreadable: the body is not JSON',
    });
    const record = answer(200, JSON.stringify({ Name: { FName: 7, LName: 'Doe' } }));
    expect(record.kind).toBe('record');
    // FName came as a number: one field not as documented.
    expect(rowStatusOf(record)).toEqual({ kind: 'ok', status: 'ok (1 field not as documented)' });
  });

  it('marks the outcomes that cost a transaction', () => {
    const paid = Object.entries(ROW_OUTCOMES).flatMap(([kind, o]) => (o.paid ? [kind] : []));
    expect(paid).toEqual(['ok', 'no-match', 'unreadable']);
  });
});

describe('formula-like text', () => {
  it("neutralises OWASP's list: = + - @ tab CR NUL, and nothing else", () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r', '\0']) {
      expect(looksLikeFormula(`${start}1+2`)).toBe(true);
      expect(neutraliseFormula(`${start}SUM(A1)`)).toBe(`'${start}SUM(A1)`);
    }
    for (const text of ['', 'Jane', "'quoted", ' =1', '1=1', '\n=1']) {
      expect(neutraliseFormula(text)).toBe(text);
    }
  });
});

describe('field kinds', () => {
  it('gives each kind one pattern, its hint, and its OpenAPI form from the same pattern', () => {
    expect(FIELD_KINDS.phone.pattern?.test('5550102030')).toBe(true);
    expect(FIELD_KINDS.phone.pattern?.test('555010203')).toBe(false);
    expect(FIELD_KINDS.zip.pattern?.test('02134')).toBe(true);
    expect(FIELD_KINDS.state.pattern?.test('ma')).toBe(false);
    // E-mail addresses are checked by rules (email.ts), not by one pattern.
    expect(FIELD_KINDS.email.pattern).toBeUndefined();
    expect(FIELD_KINDS.email.accepts?.('jane@example.com')).toBe(true);
    expect(FIELD_KINDS.email.accepts?.('jane@example')).toBe(false);
    expect(FIELD_KINDS.text.pattern).toBeUndefined();
    expect(FIELD_KINDS.phone.openapi).toEqual({ pattern: '^[0-9]{10}$' });
    expect(FIELD_KINDS.email.openapi).toEqual({ format: 'email' });
    expect(FIELD_KINDS.zip.hint).toBe('5 digits');
  });

  it('says why a value does not match', () => {
    expect(FIELD_KINDS.phone.problem('555CALL')).toBe('must be numeric only (10 digits); got "555CALL"');
    expect(FIELD_KINDS.phone.problem('555')).toBe('must be 10 digits; got 3');
    expect(FIELD_KINDS.zip.problem('x'.repeat(50))).toBe(
      `must be 5 digits; got "${'x'.repeat(4)}…" (50 characters)`,
    );
  });
});

describe('status codes', () => {
  it('classes every documented status once, and unlisted ones by range', () => {
    expect(Object.keys(STATUS_TABLE)).toEqual(['200', '204', '400', '401', '429', '440', '500']);
    expect(PAID_STATUSES).toEqual([200, 204, 440]);
    expect(statusInfo(401)).toMatchObject({ code: 'unauthorized', paid: false, retryable: false });
    expect(statusInfo(503)).toMatchObject({ code: 'server', retryable: true });
    expect(statusInfo(503).message).toContain('(503)');
    expect(statusInfo(307)).toMatchObject({ code: 'redirect', retryable: false });
    expect(statusInfo(404)).toMatchObject({ code: 'unexpected-status', retryable: false });
  });

  it('retries the codes of retryable statuses, and network failures', () => {
    const retried = (code: Parameters<typeof isRetryable>[0]['code']) => isRetryable({ code, message: '' });
    expect(retried('allowance')).toBe(true);
    expect(retried('server')).toBe(true);
    expect(retried('network')).toBe(true);
    for (const code of [
      'bad-request',
      'unauthorized',
      'too-many-results',
      'redirect',
      'bad-response',
    ] as const)
      expect(retried(code)).toBe(false);
  });
});

describe('stop reasons', () => {
  it('gives each reason its exit code and words', () => {
    expect(STOP_REASONS.budget).toEqual({ exitCode: 8, text: 'the --max-transactions budget is spent' });
    expect(STOP_REASONS.auth.exitCode).toBe(EXIT_CODES.auth);
    expect(STOP_REASONS.interrupted.exitCode).toBe(130);
  });
});

describe('permitted use', () => {
  it("says what the API description's terms say, in one sentence every client shows", () => {
    expect(PERMITTED_USE).toMatch(/^Permitted use: marketing and lead validation only\./);
    expect(PERMITTED_USE).toContain('regulated consumer-report purposes');
    expect(PERMITTED_USE).toContain('credit, insurance or employment eligibility decisions');
    expect(PERMITTED_USE).toContain('not a consumer reporting agency');
  });
});
