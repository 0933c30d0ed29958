// The response reader: each status code of the Errors table, other statuses, redirects, and 200
// bodies that are complete, partial, null-filled, in another case, with other types or unknown
// fields (kept, listed as mismatches), and cut, too big, not JSON or not an object (paid, unreadable).
import { describe, expect, it } from 'vitest';
import {
  BILLABLE_STATUSES,
  type CallError,
  capRaw,
  DEFAULT_MAX_BODY_BYTES,
  isBillable,
  isPaid,
  networkError,
  type Outcome,
  parseHttpDate,
  parseRetryAfter,
  RAW_MAX_CHARS,
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

  it('keeps fields the description does not list in extra, with dotted names, and lists them', () => {
    const outcome = readResponse(
      op('email-append'),
      json(200, { email: 'a@b.co', trace: 't', extra: 1, Meta: { Source: 'x', Deep: { Level: true } } }),
    );
    expect(outcome).toMatchObject({
      kind: 'record',
      record: { email: 'a@b.co', trace: 't' },
      extra: { extra: 1, 'Meta.Source': 'x', 'Meta.Deep.Level': true },
    });
    if (outcome.kind !== 'record') throw new Error('not a record');
    expect(outcome.mismatches.map((m) => [m.field, m.problem])).toEqual([
      ['extra', 'unknown'],
      ['Meta.Source', 'unknown'],
      ['Meta.Deep.Level', 'unknown'],
    ]);
  });

  it('keeps the raw body on a record, and lists no mismatches when the body is as described', () => {
    const body = JSON.stringify(PHONE_LOOKUP_BODY);
    expect(readResponse(op('phone-lookup'), json(200, body))).toEqual({
      kind: 'record',
      status: 200,
      record: PHONE_LOOKUP_BODY,
      extra: {},
      mismatches: [],
      raw: body,
    });
  });

  it('reads documented fields sent in another case, and says so', () => {
    const outcome = readResponse(
      op('phone-append'),
      json(200, { phone: '5550102030', phoneType: 'Wireless', TELCONAME: 'Carrier', PHV: 3, trace: 't' }),
    );
    expect(recordOf(outcome)).toMatchObject({
      Phone: '5550102030',
      PhoneType: 'Wireless',
      TelcoName: 'Carrier',
    });
    if (outcome.kind !== 'record') throw new Error('not a record');
    expect(outcome.mismatches).toEqual([
      { field: 'Phone', problem: 'case', detail: 'sent as phone' },
      { field: 'PhoneType', problem: 'case', detail: 'sent as phoneType' },
      { field: 'TelcoName', problem: 'case', detail: 'sent as TELCONAME' },
    ]);
  });

  it('reads group leaves in another case (name.fName), and prefers the exact name when both come', () => {
    const outcome = readResponse(
      op('phone-lookup'),
      json(200, { name: { fName: 'JANE', LName: 'DOE', lname: 'OTHER' }, Address: {}, trace: 't' }),
    );
    expect(recordOf(outcome).Name).toEqual({ FName: 'JANE', LName: 'DOE', MName: '' });
    if (outcome.kind !== 'record') throw new Error('not a record');
    expect(outcome.extra).toEqual({ 'Name.lname': 'OTHER' });
    expect(outcome.mismatches.map((m) => `${m.field} ${m.problem}`)).toEqual([
      'Name case',
      'Name.FName case',
      'Name.lname unknown',
    ]);
  });

  it('keeps the unknown fields a published client reads from Phone Append (DID, telcoName...)', () => {
    const outcome = readResponse(
      op('phone-append'),
      json(200, { Phone: '5550102030', DID: '5550102030', telcoName: 'Carrier', LineType: 'W', trace: 't' }),
    );
    expect(outcome).toMatchObject({
      kind: 'record',
      record: { Phone: '5550102030', TelcoName: 'Carrier' },
      extra: { DID: '5550102030', LineType: 'W' },
    });
  });

  it.each([
    [
      'Deliverable "Y" where a boolean is promised',
      'phone-lookup',
      { Address: { Deliverable: 'Y' } },
      (r: Record<string, unknown>) => (r.Address as Record<string, unknown>).Deliverable,
      'Y',
      {
        field: 'Address.Deliverable',
        problem: 'type',
        detail: 'should be true or false; got text "Y", kept as text',
      },
    ],
    [
      '"true" where a boolean is promised',
      'phone-lookup',
      { Address: { Deliverable: 'true' } },
      (r: Record<string, unknown>) => (r.Address as Record<string, unknown>).Deliverable,
      true,
      {
        field: 'Address.Deliverable',
        problem: 'type',
        detail: 'should be true or false; got text "true", kept as true',
      },
    ],
    [
      'PHV that is not a number',
      'phone-append',
      { PHV: 'high' },
      (r: Record<string, unknown>) => r.PHV,
      'high',
      { field: 'PHV', problem: 'type', detail: 'should be a number; got text "high", kept as text' },
    ],
    [
      'a leaf that is an object',
      'tcpa-verify',
      { phone_type: { x: 1 } },
      (r: Record<string, unknown>) => r.phone_type,
      '{"x":1}',
      { field: 'phone_type', problem: 'type', detail: 'should be text; got an object, kept as text' },
    ],
  ] as const)('keeps %s, as text unless it converts without loss', (_, id, body, pick, kept, mismatch) => {
    const outcome = readResponse(op(id), json(200, body));
    expect(pick(recordOf(outcome) as Record<string, unknown>)).toEqual(kept);
    if (outcome.kind !== 'record') throw new Error('not a record');
    expect(outcome.mismatches).toEqual([mismatch]);
  });

  it.each([
    ['text', 'phone-lookup', { Address: 'Main St', trace: 't' }, 'Address', 'Main St'],
    ['a list', 'id-verify', { IDScores: [1] }, 'IDScores', '[1]'],
  ] as const)(
    'keeps a group that came as %s in extra, with an empty group in the record',
    (_, id, body, group, kept) => {
      const outcome = readResponse(op(id), json(200, body));
      if (outcome.kind !== 'record') throw new Error(`expected a record, got ${outcome.kind}`);
      expect(Object.values(outcome.record[group] as object).every((v) => v === '' || v === null)).toBe(true);
      expect(outcome.extra).toEqual({ [group]: kept });
      expect(outcome.mismatches).toEqual([expect.objectContaining({ field: group, problem: 'not-object' })]);
    },
  );

  it('keeps a field named __proto__ as data, without touching any prototype', () => {
    const outcome = readResponse(
      op('email-verify'),
      json(200, '{"Email":"a@b.co","__proto__":{"polluted":1}}'),
    );
    if (outcome.kind !== 'record') throw new Error('not a record');
    expect(outcome.extra).toEqual({ '__proto__.polluted': 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['not JSON', '<html>oops</html>', 'the body is not JSON'],
    ['empty', '', 'the body is not JSON'],
    ['a JSON array', '[]', 'the body is JSON but a list, not an object'],
    ['JSON null', 'null', 'the body is JSON but null, not an object'],
    ['a JSON string', '"ok"', 'the body is JSON but text "ok", not an object'],
  ] as const)('reads a 200 whose body is %s as paid, unreadable, with the raw body', (_, body, reason) => {
    expect(readResponse(op('phone-lookup'), json(200, body))).toEqual({
      kind: 'unreadable',
      status: 200,
      raw: body,
      reason,
    });
  });

  it('reads a 200 whose body broke off or passed the cap as unreadable, keeping what arrived (capped)', () => {
    const cut = readResponse(op('phone-lookup'), {
      status: 200,
      headers: {},
      body: '{"Name":{"FN',
      bodyProblem: 'cut',
    });
    expect(cut).toEqual({
      kind: 'unreadable',
      status: 200,
      raw: '{"Name":{"FN',
      reason: 'the body broke off before it was complete',
    });
    const big = 'x'.repeat(RAW_MAX_CHARS + 10);
    const tooBig = readResponse(op('phone-lookup'), {
      status: 200,
      headers: {},
      body: big,
      bodyProblem: 'too-big',
    });
    expect(tooBig).toMatchObject({ kind: 'unreadable', reason: 'the body is larger than the size limit' });
    if (tooBig.kind !== 'unreadable') throw new Error('not unreadable');
    expect(tooBig.raw).toHaveLength(RAW_MAX_CHARS);
  });

  it('reads a 200 over 1 MB as unreadable even from a transport that has no cap of its own', () => {
    const body = JSON.stringify({ Email: 'a@b.co', Result: 'x'.repeat(DEFAULT_MAX_BODY_BYTES) });
    expect(readResponse(op('email-verify'), json(200, body))).toMatchObject({
      kind: 'unreadable',
      reason: 'the body is larger than the size limit',
    });
  });

  it('caps raw text without splitting a surrogate pair', () => {
    expect(capRaw('ab😀cd', 3)).toBe('ab');
    expect(capRaw('ab😀cd', 4)).toBe('ab😀');
    expect(capRaw('short', 10)).toBe('short');
  });

  it('reads a body nested too deeply to walk as unreadable, not a crash', () => {
    const deep = `{"X":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
    const outcome = readResponse(op('email-verify'), json(200, deep));
    expect(['record', 'unreadable']).toContain(outcome.kind);
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
    expect(performance.now() - started).toBeLessThan(50);
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

  it('derives the billable statuses and isPaid from one table', () => {
    expect([...BILLABLE_STATUSES].sort()).toEqual([200, 204, 440]);
    for (const status of BILLABLE_STATUSES)
      expect(isPaid({ kind: 'error', error: { code: 'too-many-results', message: '', status } })).toBe(true);
  });

  it('still counts a bad-response stored by an earlier version, and keeps isBillable as its old name', () => {
    const stored: Outcome = { kind: 'error', error: { code: 'bad-response', message: 'x', status: 200 } };
    expect(isPaid(stored)).toBe(true);
    expect(isBillable).toBe(isPaid);
  });
});
