// The response reader: each status code of the Errors table, other statuses, and 200 bodies that
// are complete, partial, null-filled, not JSON or not the promised shape.
import { describe, expect, it } from 'vitest';
import {
  type CallError,
  EnrichError,
  isBillable,
  networkError,
  type Outcome,
  parseRetryAfter,
  readResponse,
} from '../src/index.js';
import { op } from './api.js';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

function errorOf(outcome: Outcome): CallError {
  if (outcome.kind !== 'error') throw new Error(`expected an error, got ${outcome.kind}`);
  return outcome.error;
}

function recordOf(outcome: Outcome) {
  if (outcome.kind !== 'record') throw new Error(`expected a record, got ${JSON.stringify(outcome)}`);
  return outcome.record;
}

const PHONE_LOOKUP_BODY = {
  Name: { FName: 'JANE', LName: 'DOE', MName: 'Q' },
  Address: {
    House: '12',
    PreDir: '',
    Street: 'MAIN',
    StrType: 'ST',
    PostDir: '',
    AptType: null,
    City: 'BOSTON',
    State: 'MA',
    Zip: '02134',
    Z4: '1234',
    CNTY: '025',
    Deliverable: true,
    ValDate: '1/31/2024',
  },
  trace: 'abc123',
};

describe('200', () => {
  it('reads a Phone Lookup record: AptType null kept, Deliverable a boolean', () => {
    const record = recordOf(readResponse(op('phone-lookup'), json(200, PHONE_LOOKUP_BODY)));
    expect(record).toEqual(PHONE_LOOKUP_BODY);
    expect(record.Address).toMatchObject({ AptType: null, Deliverable: true });
  });

  it('reads missing and null fields as "" except where null is allowed', () => {
    const record = recordOf(
      readResponse(op('phone-lookup'), json(200, { Name: { FName: 'JANE', LName: null }, Address: {} })),
    );
    expect(record.Name).toEqual({ FName: 'JANE', LName: '', MName: '' });
    expect(record.Address).toMatchObject({ AptType: null, City: '', Deliverable: '', ValDate: '' });
    expect(record.trace).toBe('');
  });

  it('reads Email Lookup\'s null AptType as "" (only Phone Lookup\'s may be null) and its Deliverable as a flag', () => {
    const record = recordOf(
      readResponse(
        op('email-lookup'),
        json(200, {
          Name: {},
          Address: { AptType: null, Deliverable: 'Y', ValDate: '20240131' },
          trace: 't',
        }),
      ),
    );
    expect(record.Address).toMatchObject({ AptType: '', Deliverable: 'Y', ValDate: '20240131' });
  });

  it('reads a missing or null group as a group of empty values', () => {
    const record = recordOf(readResponse(op('auto-append'), json(200, { Vehicle2: null })));
    expect(record.Vehicle2).toEqual({
      Make: '',
      Model: '',
      Year: '',
      ClassCD: '',
      FuelTypeCD: '',
      MFGCD: '',
      StyleCD: '',
      Mileages: '',
      ODate: '',
    });
    expect(Object.keys(record)).toEqual([
      'Name',
      'Address',
      'IDS',
      'Vehicle',
      'Vehicle2',
      'Vehicle3',
      'Vehicle4',
    ]);
  });

  it('reads PHV as a number, from a number or numeric text', () => {
    const body = {
      Phone: '(555) 010-2030',
      PhoneType: 'Wireless',
      FirstSeen: '1/2/2019',
      LastSeen: '3/4/2024',
      TelcoName: 'Carrier',
      PHV: 7,
      trace: 't',
    };
    expect(recordOf(readResponse(op('phone-append'), json(200, body)))).toEqual(body);
    expect(recordOf(readResponse(op('phone-append'), json(200, { ...body, PHV: '12' }))).PHV).toBe(12);
    expect(recordOf(readResponse(op('phone-append'), json(200, { ...body, PHV: '' }))).PHV).toBe('');
  });

  it('reads a number where text is promised as text', () => {
    const record = recordOf(readResponse(op('email-verify'), json(200, { Email: 'a@b.co', Result: 3 })));
    expect(record).toEqual({ Email: 'a@b.co', Result: '3' });
  });

  it('ignores fields the description does not list', () => {
    const record = recordOf(
      readResponse(op('email-append'), json(200, { email: 'a@b.co', trace: 't', extra: 1 })),
    );
    expect(record).toEqual({ email: 'a@b.co', trace: 't' });
  });

  it.each([
    ['not JSON', 'phone-lookup', '<html>oops</html>', 'the body is not JSON'],
    ['empty', 'phone-lookup', '', 'the body is not JSON'],
    ['a JSON array', 'phone-lookup', '[]', 'the body is not a JSON object'],
    ['JSON null', 'email-verify', 'null', 'the body is not a JSON object'],
    ['a group that is text', 'phone-lookup', { Address: 'Main St' }, 'Address is not an object'],
    ['a group that is a list', 'id-verify', { IDScores: [1] }, 'IDScores is not an object'],
    ['PHV that is not a number', 'phone-append', { PHV: 'high' }, 'PHV should be a number'],
    [
      'Deliverable that is not a boolean',
      'phone-lookup',
      { Address: { Deliverable: 'Y' } },
      'Address.Deliverable should be true or false',
    ],
    ['a leaf that is an object', 'tcpa-verify', { phone_type: { x: 1 } }, 'phone_type should be text'],
  ] as const)('reports a 200 whose body is %s', (_, id, body, what) => {
    const error = errorOf(readResponse(op(id), json(200, body)));
    expect(error).toEqual({
      code: 'bad-response',
      status: 200,
      message: `The service answered with something unexpected: ${what}.`,
    });
  });
});

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
    [302, 'unexpected-status', /unexpected status \(302\)/],
    [404, 'unexpected-status', /unexpected status \(404\)/],
    [418, 'unexpected-status', /unexpected status \(418\)/],
  ] as const)('reads %i as %s', (status, code, message) => {
    const error = errorOf(readResponse(op('email-verify'), json(status, '{"error":"x"}')));
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.message).toMatch(message);
    expect(error.retryAfterMs).toBeUndefined();
  });

  it('reads a 429 with Retry-After in seconds', () => {
    const error = errorOf(readResponse(op('email-verify'), json(429, '', { 'retry-after': '120' })));
    expect(error).toMatchObject({ code: 'allowance', status: 429, retryAfterMs: 120_000 });
  });

  it('reads a 429 without Retry-After, or with a date (which needs a clock), as no hint', () => {
    expect(errorOf(readResponse(op('email-verify'), json(429, ''))).retryAfterMs).toBeUndefined();
    const dated = json(429, '', { 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' });
    expect(errorOf(readResponse(op('email-verify'), dated))).not.toHaveProperty('retryAfterMs');
  });

  it('reads Retry-After on a 503 too, and ignores it on a 400', () => {
    expect(
      errorOf(readResponse(op('email-verify'), json(503, '', { 'retry-after': '2' }))).retryAfterMs,
    ).toBe(2000);
    expect(
      errorOf(readResponse(op('email-verify'), json(400, '', { 'retry-after': '2' }))).retryAfterMs,
    ).toBeUndefined();
  });

  it('parses Retry-After values', () => {
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter(' 3 ')).toBe(3000);
    expect(parseRetryAfter('1.5')).toBe(1500);
    expect(parseRetryAfter('-1')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it('names the host of a network failure, not the full address', () => {
    const error = errorOf(networkError('https://api.example.com/v2/verify/email', new Error('ECONNREFUSED')));
    expect(error).toEqual({
      code: 'network',
      message: 'Could not reach the service at api.example.com: ECONNREFUSED',
    });
  });

  it('EnrichError carries the same data for code that throws', () => {
    const error = new EnrichError(
      errorOf(readResponse(op('email-verify'), json(429, '', { 'retry-after': '1' }))),
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'EnrichError', code: 'allowance', status: 429, retryAfterMs: 1000 });
  });
});

describe('billing', () => {
  it('counts 200, 204 and 440 (and a 200 with a bad body), not the errors before the operation ran', () => {
    const outcome = (status: number, body = '{}') =>
      readResponse(op('email-verify'), { status, headers: {}, body });
    expect(isBillable(outcome(200))).toBe(true);
    expect(isBillable(outcome(204))).toBe(true);
    expect(isBillable(outcome(440))).toBe(true);
    expect(isBillable(outcome(200, 'nope'))).toBe(true);
    for (const status of [400, 401, 429, 500, 503])
      expect(isBillable(outcome(status)), String(status)).toBe(false);
    expect(isBillable(networkError('https://x.test', 'down'))).toBe(false);
  });
});
