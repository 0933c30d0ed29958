// The response reader on a 200: bodies that are complete, partial, null-filled, in another case,
// with other types or unknown fields (kept, listed as mismatches), and cut, too big, not JSON or not
// an object (paid, unreadable).
import { describe, expect, it } from 'vitest';
import { capRaw, DEFAULT_MAX_BODY_BYTES, type Outcome, RAW_MAX_CHARS, readResponse } from '../src/index.js';
import { op } from './api.js';
import { json } from './response-fixtures.js';

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
