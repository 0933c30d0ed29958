// Every requirement rule of the nine operations, as the API description states it, each with
// inputs that pass and inputs that fail (and the words the failure must use).
import { describe, expect, it } from 'vitest';
import { checkRule, type OperationId, validate } from '../src/index.js';
import { op } from './api.js';

const PHONE = '5550102030';
const EMAIL = 'jane@example.com';
const NAME_ADDRESS = { FName: 'Jane', LName: 'Doe', Address1: '12 Main St' };

interface RuleCase {
  readonly rule: string;
  readonly pass: ReadonlyArray<Record<string, string>>;
  readonly fail: ReadonlyArray<readonly [Record<string, string>, RegExp]>;
}

const RULES: Record<OperationId, readonly RuleCase[]> = {
  'auto-append': [
    {
      rule: 'Phone, or Email, or FullName + Address1 + Zip must be supplied',
      pass: [
        { Phone: PHONE },
        { Email: EMAIL },
        { FullName: 'Jane Doe', Address1: '12 Main St', Zip: '02134' },
        { Phone: PHONE, Email: EMAIL },
      ],
      fail: [
        [{}, /^Auto Append: give Phone, or Email, or FullName, Address1 and Zip$/],
        [{ Address1: '12 Main St', Zip: '02134' }, /give Phone, or Email, or FullName, Address1 and Zip/],
      ],
    },
    {
      rule: 'FullName, Address1 and Zip are required together',
      pass: [{ Phone: PHONE, FullName: 'Jane Doe', Address1: '12 Main St', Zip: '02134' }],
      fail: [
        [
          { Phone: PHONE, FullName: 'Jane Doe' },
          /FullName, Address1 and Zip go together: FullName given without Address1 and Zip/,
        ],
        [
          { Email: EMAIL, Address1: '12 Main St', Zip: '02134' },
          /FullName, Address1 and Zip go together: Address1 and Zip given without FullName/,
        ],
      ],
    },
  ],
  'demographic-append': [
    {
      rule: 'FName, LName and Address1 are supplied',
      pass: [{ ...NAME_ADDRESS, Zip: '02134', Phone: PHONE }],
      fail: [
        [{ LName: 'Doe', Address1: '12 Main St', Zip: '02134', Phone: PHONE }, /FName is required/],
        [{ FName: 'Jane', Address1: '12 Main St', Zip: '02134', Phone: PHONE }, /LName is required/],
        [{ FName: 'Jane', LName: 'Doe', Zip: '02134', Phone: PHONE }, /Address1 is required/],
        [{ Zip: '02134', Phone: PHONE }, /FName, LName and Address1 are required/],
      ],
    },
    {
      rule: 'Either City and State, or Zip, is required',
      pass: [
        { ...NAME_ADDRESS, Zip: '02134', Phone: PHONE },
        { ...NAME_ADDRESS, City: 'Boston', State: 'MA', Phone: PHONE },
        { ...NAME_ADDRESS, Zip: '02134', City: 'Boston', State: 'MA', Phone: PHONE },
        // City and State are optional parameters: one of them beside a Zip breaks no rule.
        { ...NAME_ADDRESS, Zip: '02134', City: 'Boston', Phone: PHONE },
        { ...NAME_ADDRESS, Zip: '02134', State: 'MA', Phone: PHONE },
      ],
      fail: [
        [{ ...NAME_ADDRESS, Phone: PHONE }, /^Demographic Append: give Zip, or City and State$/],
        [{ ...NAME_ADDRESS, City: 'Boston', Phone: PHONE }, /give Zip, or City and State/],
        [{ ...NAME_ADDRESS, State: 'MA', Phone: PHONE }, /give Zip, or City and State/],
      ],
    },
    {
      rule: 'Phone or Email is supplied with the name and address',
      pass: [
        { ...NAME_ADDRESS, Zip: '02134', Phone: PHONE },
        { ...NAME_ADDRESS, Zip: '02134', Email: EMAIL },
        { ...NAME_ADDRESS, Zip: '02134', Phone: PHONE, Email: EMAIL },
      ],
      fail: [[{ ...NAME_ADDRESS, Zip: '02134' }, /^Demographic Append: give Phone, or Email$/]],
    },
  ],
  'email-append': [
    {
      rule: 'FName, LName, Address1 and Zip, each required when the others are included',
      pass: [{ ...NAME_ADDRESS, Zip: '02134' }],
      fail: [
        [{ LName: 'Doe', Address1: '12 Main St', Zip: '02134' }, /^Email Append: FName is required$/],
        [{ FName: 'Jane', Address1: '12 Main St', Zip: '02134' }, /^Email Append: LName is required$/],
        [{ FName: 'Jane', LName: 'Doe', Zip: '02134' }, /^Email Append: Address1 is required$/],
        [{ ...NAME_ADDRESS }, /^Email Append: Zip is required$/],
        [{}, /^Email Append: FName, LName, Address1 and Zip are required$/],
      ],
    },
  ],
  'phone-append': [
    {
      rule: 'FName, LName, Address1 required; Zip required (no City/State parameters)',
      pass: [{ ...NAME_ADDRESS, Zip: '02134' }],
      fail: [
        [{ LName: 'Doe', Address1: '12 Main St', Zip: '02134' }, /^Phone Append: FName is required$/],
        [{ FName: 'Jane', Address1: '12 Main St', Zip: '02134' }, /^Phone Append: LName is required$/],
        [{ FName: 'Jane', LName: 'Doe', Zip: '02134' }, /^Phone Append: Address1 is required$/],
        [{ ...NAME_ADDRESS }, /^Phone Append: Zip is required$/],
        [{ ...NAME_ADDRESS, City: 'Boston' }, /^Phone Append does not take City/],
      ],
    },
  ],
  'email-lookup': [
    {
      rule: 'Email required',
      pass: [{ Email: EMAIL }],
      fail: [
        [{}, /^Email Lookup: Email is required$/],
        [{ Email: '   ' }, /^Email Lookup: Email is required$/],
        [{ Email: 'jane.example.com' }, /^Email must have exactly one @; got "jane.example.com"$/],
        [{ Phone: PHONE }, /^Email Lookup does not take Phone; it takes Email$/],
      ],
    },
  ],
  'phone-lookup': [
    {
      rule: 'Phone required',
      pass: [{ Phone: PHONE }],
      fail: [
        [{}, /^Phone Lookup: Phone is required$/],
        [{ Email: EMAIL }, /^Phone Lookup does not take Email; it takes Phone$/],
      ],
    },
  ],
  'email-verify': [
    {
      rule: 'Email required',
      pass: [{ Email: EMAIL }],
      fail: [
        [{}, /^Email Verify: Email is required$/],
        [{ Email: 'not an address' }, /^Email must have exactly one @; got "not an address"$/],
      ],
    },
  ],
  'tcpa-verify': [
    {
      rule: 'phone and last_name required',
      pass: [{ phone: PHONE, last_name: 'Doe' }],
      fail: [
        [{ phone: PHONE }, /^TCPA Verify: last_name is required$/],
        [{ last_name: 'Doe' }, /^TCPA Verify: phone is required$/],
        [{}, /^TCPA Verify: phone and last_name are required$/],
      ],
    },
  ],
  'id-verify': [
    {
      rule: 'each item is required only when it is to be verified (at least one item)',
      pass: [
        { FName: 'Jane' },
        { LName: 'Doe' },
        { Zip: '02134' },
        { Phone: PHONE },
        { Email: EMAIL },
        { FName: 'Jane', LName: 'Doe', Address1: '12 Main St', Zip: '02134', Phone: PHONE, Email: EMAIL },
      ],
      fail: [[{}, /^ID Verify: give FName, or LName, or Address1, or Zip, or Phone, or Email$/]],
    },
    {
      rule: 'Zip is needed for address verification',
      pass: [{ Address1: '12 Main St', Zip: '02134' }],
      fail: [
        [{ Address1: '12 Main St' }, /^ID Verify: Address1 needs Zip as well$/],
        [{ FName: 'Jane', Address1: '12 Main St', Phone: PHONE }, /Address1 needs Zip as well/],
      ],
    },
  ],
};

const cases = Object.entries(RULES).flatMap(([id, rules]) =>
  rules.map((r) => ({ ...r, id: id as OperationId, title: op(id as OperationId).title })),
);

describe('requirement rules', () => {
  it.each(cases)('$title: $rule — passing inputs pass', ({ id, pass }) => {
    expect(pass.length).toBeGreaterThan(0);
    for (const input of pass) {
      const result = validate(op(id), input);
      expect(result, JSON.stringify(input)).toMatchObject({ ok: true });
      // Only the given fields are sent.
      if (result.ok) expect(Object.keys(result.input).sort()).toEqual(Object.keys(input).sort());
    }
  });

  it.each(cases)('$title: $rule — failing inputs fail, saying why', ({ id, fail }) => {
    expect(fail.length).toBeGreaterThan(0);
    for (const [input, message] of fail) {
      const result = validate(op(id), input);
      expect(result.ok, JSON.stringify(input)).toBe(false);
      if (!result.ok) expect(result.message).toMatch(message);
    }
  });

  it('covers all nine operations', () => {
    expect(Object.keys(RULES)).toHaveLength(9);
  });

  it('treats blank and null values as not given', () => {
    expect(validate(op('tcpa-verify'), { phone: PHONE, last_name: '  ' })).toMatchObject({
      ok: false,
      message: 'TCPA Verify: last_name is required',
    });
    expect(validate(op('phone-lookup'), { Phone: null })).toMatchObject({ ok: false });
    // A blank column the operation does not take is ignored, not reported.
    expect(validate(op('phone-lookup'), { Phone: PHONE, Email: '' })).toMatchObject({ ok: true });
  });

  it('reports every broken rule at once', () => {
    const result = validate(op('demographic-append'), { FName: 'Jane' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issues.map((i) => i.field)).toEqual([
        'FName+LName+Address1',
        'Zip+City+State',
        'Phone+Email',
      ]);
      expect(result.message).toBe(
        'Demographic Append: LName and Address1 are required; give Zip, or City and State; give Phone, or Email',
      );
    }
  });

  it('refuses what is not a set of named fields', () => {
    for (const raw of [null, undefined, 'x', 5, [PHONE]]) {
      expect(validate(op('phone-lookup'), raw)).toMatchObject({
        ok: false,
        message: 'The input must be a set of named fields',
      });
    }
  });
});

describe('checkRule', () => {
  const given =
    (...names: string[]) =>
    (f: string) =>
      names.includes(f);

  it('required, one-of, together and needs each hold and break', () => {
    expect(checkRule({ kind: 'required', fields: ['A', 'B'] }, given('A', 'B'))).toBeUndefined();
    expect(checkRule({ kind: 'required', fields: ['A', 'B'] }, given('A'))).toBe('B is required');
    expect(checkRule({ kind: 'one-of', groups: [['A'], ['B', 'C']] }, given('B', 'C'))).toBeUndefined();
    expect(checkRule({ kind: 'one-of', groups: [['A'], ['B', 'C']] }, given('B'))).toBe('give A, or B and C');
    expect(checkRule({ kind: 'together', fields: ['A', 'B'] }, given())).toBeUndefined();
    expect(checkRule({ kind: 'together', fields: ['A', 'B'] }, given('B'))).toBe(
      'A and B go together: B given without A',
    );
    expect(checkRule({ kind: 'needs', field: 'A', groups: [['B']] }, given('B'))).toBeUndefined();
    expect(checkRule({ kind: 'needs', field: 'A', groups: [['B']] }, given('A'))).toBe('A needs B as well');
  });
});

describe('a field given under two spellings', () => {
  it('is refused when the values differ, naming both spellings; nothing would be sent', () => {
    const result = validate(op('phone-lookup'), { Phone: '5550102030', phone: '5550109999' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toEqual([
      {
        field: 'Phone',
        message: 'Phone is given twice with different values (as Phone and as phone); give it once',
      },
    ]);
  });

  it('is accepted when both spellings say the same, once normalised', () => {
    const result = validate(op('phone-lookup'), { Phone: '5550102030', phone: '(555) 010-2030' });
    expect(result).toEqual({ ok: true, input: { Phone: '5550102030' } });
  });
});
