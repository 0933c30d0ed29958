// Every row of the API description's Limits table, for every operation it applies to: a value at
// the bound passes, a value past it fails with a message naming the field and the bound.
import { describe, expect, it } from 'vitest';
import { OPERATIONS, type OperationId, validate } from '../src/index.js';
import { emailOfLength, op, VALID } from './api.js';

interface LimitCase {
  /** The Limits row, as the table words it. */
  readonly row: string;
  readonly field: string;
  readonly ops: readonly OperationId[];
  /** Values at the bound, which pass. */
  readonly atBound: readonly string[];
  /** Values past the bound, and the message each must give. */
  readonly pastBound: ReadonlyArray<readonly [string, RegExp]>;
}

const text = (n: number) => 'x'.repeat(n);
const maxChars = (field: string, max: number) => ({
  atBound: [text(max), `  ${text(max)}  `],
  pastBound: [
    [text(max + 1), new RegExp(`^${field} must be at most ${max} characters; got ${max + 1}$`)],
  ] as const,
});

// The Limits table, restated. "All operations taking Email/Zip/Phone" are spelled out, and the
// catalog's lists of operations taking each field are checked against these lists below.
const LIMITS: readonly LimitCase[] = [
  {
    row: 'Email | all operations taking Email | max 100 characters',
    field: 'Email',
    ops: ['auto-append', 'demographic-append', 'email-lookup', 'email-verify', 'id-verify'],
    atBound: [emailOfLength(100)],
    pastBound: [[emailOfLength(101), /^Email must be at most 100 characters; got 101$/]],
  },
  {
    row: 'FName | Demographic Append, Email Append, Phone Append | max 15 characters',
    field: 'FName',
    ops: ['demographic-append', 'email-append', 'phone-append'],
    ...maxChars('FName', 15),
  },
  {
    row: 'LName | Demographic Append, ID Verify | max 20 characters',
    field: 'LName',
    ops: ['demographic-append', 'id-verify'],
    ...maxChars('LName', 20),
  },
  {
    row: 'LName | Phone Append | max 15 characters',
    field: 'LName',
    ops: ['phone-append'],
    ...maxChars('LName', 15),
  },
  {
    row: 'Address1 | Demographic Append, Email Append, ID Verify | max 64 characters',
    field: 'Address1',
    ops: ['demographic-append', 'email-append', 'id-verify'],
    ...maxChars('Address1', 64),
  },
  {
    row: 'Address1 | Phone Append | max 60 characters',
    field: 'Address1',
    ops: ['phone-append'],
    ...maxChars('Address1', 60),
  },
  {
    row: 'City | Demographic Append | max 28 characters',
    field: 'City',
    ops: ['demographic-append'],
    ...maxChars('City', 28),
  },
  {
    row: 'State | Demographic Append | 2 characters',
    field: 'State',
    ops: ['demographic-append'],
    atBound: ['MA', 'ma', ' ny '],
    pastBound: [
      ['MAS', /^State must be a 2-letter state abbreviation; got "MAS"$/],
      ['M', /^State must be a 2-letter state abbreviation; got "M"$/],
    ],
  },
  {
    row: 'Zip | all | 5 digits',
    field: 'Zip',
    ops: ['auto-append', 'demographic-append', 'email-append', 'phone-append', 'id-verify'],
    atBound: ['02134', '99999'],
    pastBound: [
      ['021345', /^Zip must be 5 digits; got "021345"$/],
      ['21', /^Zip must be 5 digits; got "21"$/],
      ['0213A', /^Zip must be 5 digits; got "0213A"$/],
    ],
  },
  {
    row: 'Phone | all | 10 digits, numeric',
    field: 'Phone',
    ops: ['auto-append', 'demographic-append', 'phone-lookup', 'id-verify'],
    atBound: ['5550102030', '0000000000'],
    pastBound: [
      ['555010203', /^Phone must be 10 digits; got 9$/],
      ['55501020301', /^Phone must be 10 digits; got 11$/],
      ['555010203O', /^Phone must be numeric only \(10 digits\); got "555010203O"$/],
    ],
  },
  {
    row: 'phone (TCPA Verify, lowercase name) | 10 digits numeric',
    field: 'phone',
    ops: ['tcpa-verify'],
    atBound: ['5550102030'],
    pastBound: [
      ['555010203', /^phone must be 10 digits; got 9$/],
      ['55501020301', /^phone must be 10 digits; got 11$/],
      ['555-CALL-NOW', /^phone must be numeric only \(10 digits\); got "555-CALL-NOW"$/],
    ],
  },
];

// Bounds of the "Input fields" table that reach operations the Limits table does not list
// (the decision at the top of catalog.ts: a field's stated bound holds wherever it is taken).
const INPUT_TABLE_BOUNDS: readonly LimitCase[] = [
  { row: 'FName max 15 (ID Verify)', field: 'FName', ops: ['id-verify'], ...maxChars('FName', 15) },
  { row: 'LName max 20 (Email Append)', field: 'LName', ops: ['email-append'], ...maxChars('LName', 20) },
  {
    row: 'Address1 max 64 (Auto Append)',
    field: 'Address1',
    ops: ['auto-append'],
    ...maxChars('Address1', 64),
  },
];

/** The operation's valid input with one field changed, kept valid under its requirement rules. */
function withField(id: OperationId, field: string, value: string): Record<string, string> {
  const input: Record<string, string> = { ...VALID[id], [field]: value };
  // Auto Append's address fields go together; State is checked with City.
  if (id === 'auto-append' && ['Address1', 'Zip'].includes(field)) {
    Object.assign(input, { FullName: 'Jane Doe', Address1: '12 Main St', Zip: '02134', [field]: value });
  }
  if (field === 'State') input.City = 'Boston';
  if (field === 'City') input.State = 'MA';
  return input;
}

const cases = (limits: readonly LimitCase[]) =>
  limits.flatMap((l) => l.ops.map((id) => ({ ...l, id, title: op(id).title })));

describe.each([
  ['the Limits table', LIMITS],
  ['the Input fields table', INPUT_TABLE_BOUNDS],
])('%s', (_, limits) => {
  it.each(cases(limits))('$row: $title at the bound passes', ({ id, field, atBound }) => {
    for (const value of atBound) {
      const result = validate(op(id), withField(id, field, value));
      expect(result, `${field}=${JSON.stringify(value)}`).toMatchObject({ ok: true });
      const expected = field === 'State' ? value.trim().toUpperCase() : value.trim();
      if (result.ok) expect(result.input[field]).toBe(expected);
    }
  });

  it.each(cases(limits))('$row: $title past the bound fails naming $field', ({ id, field, pastBound }) => {
    for (const [value, message] of pastBound) {
      const result = validate(op(id), withField(id, field, value));
      expect(result.ok, `${field}=${JSON.stringify(value)}`).toBe(false);
      if (result.ok) continue;
      expect(result.issues).toHaveLength(1);
      expect(result.issues[0]?.field).toBe(field);
      expect(result.issues[0]?.message).toMatch(message);
      // The one-line message shown to people is the field's own message.
      expect(result.message).toBe(result.issues[0]?.message);
    }
  });
});

describe('the Limits table covers the catalog', () => {
  // Each bounded field, the operations the tables above say take it.
  const covered = (field: string) =>
    new Set(cases([...LIMITS, ...INPUT_TABLE_BOUNDS].filter((l) => l.field === field)).map((c) => c.id));

  it.each(['Email', 'FName', 'LName', 'Address1', 'City', 'State', 'Zip', 'Phone', 'phone'])(
    'every operation taking %s is tested against its bound',
    (field) => {
      const taking = OPERATIONS.filter((o) => o.inputs.some((f) => f.name === field)).map((o) => o.id);
      expect(new Set(taking)).toEqual(covered(field));
    },
  );

  it("leaves FullName and TCPA's last_name unbounded, as the description does", () => {
    const long = text(500);
    expect(validate(op('auto-append'), { FullName: long, Address1: '1 A St', Zip: '02134' }).ok).toBe(true);
    expect(validate(op('tcpa-verify'), { phone: '5550102030', last_name: long }).ok).toBe(true);
  });

  it('checks the 10 digits after normalisation, so formatting does not count', () => {
    expect(validate(op('phone-lookup'), { Phone: '(555) 010-203' })).toMatchObject({
      ok: false,
      message: 'Phone must be 10 digits; got 9',
    });
  });
});
