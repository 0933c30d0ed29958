// Normalisation of what spreadsheets and CSVs hold, before validation: the issue's cases, then
// fast-check properties (normalising twice changes nothing; validation never throws).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type InputKind, normaliseValue, OPERATIONS, validate, validateField } from '../src/index.js';
import { op } from './api.js';

const value = (kind: InputKind, raw: unknown) => {
  const n = normaliseValue(kind, raw);
  return 'value' in n ? n.value : { problem: n.problem };
};

describe('normalisation cases', () => {
  it.each([
    ['(555) 010-2030'],
    ['555.010.2030'],
    ['+1 555 010 2030'],
    ['555-010-2030'],
    ['1 (555) 010-2030'],
    ['15550102030'],
    ['  5550102030  '],
    [5550102030],
    [15550102030],
  ])('phone %j becomes "5550102030"', (raw) => {
    expect(value('phone', raw)).toBe('5550102030');
    expect(validate(op('phone-lookup'), { Phone: raw })).toEqual({
      ok: true,
      input: { Phone: '5550102030' },
    });
    expect(validate(op('tcpa-verify'), { phone: raw, last_name: 'Doe' })).toMatchObject({
      ok: true,
      input: { phone: '5550102030' },
    });
  });

  it.each([
    [2134, '02134'],
    ['2134', '02134'],
    [501, '00501'],
    ['02134-1234', '02134'],
    ['02134 1234', '02134'],
    ['021341234', '02134'],
    [21341234, '02134'],
    ['2134-1234', '02134'],
    [' 02134 ', '02134'],
    ['90210', '90210'],
  ])('zip %j becomes %j', (raw, expected) => {
    expect(value('zip', raw)).toBe(expected);
    expect(
      validate(op('phone-append'), { FName: 'J', LName: 'D', Address1: '1 A St', Zip: raw }),
    ).toMatchObject({
      ok: true,
      input: { Zip: expected },
    });
  });

  it('trims and collapses whitespace in text', () => {
    expect(value('text', '  Jane  ')).toBe('Jane');
    expect(value('text', '12\tMain   St\n')).toBe('12 Main St');
    expect(value('text', '\u00a0Jane\u00a0')).toBe('Jane');
  });

  it('upper-cases State', () => {
    expect(value('state', ' ma ')).toBe('MA');
    expect(
      validate(op('demographic-append'), {
        FName: 'Jane',
        LName: 'Doe',
        Address1: '12 Main St',
        City: ' Boston ',
        State: 'ny',
        Phone: '5550102030',
      }),
    ).toMatchObject({ ok: true, input: { City: 'Boston', State: 'NY' } });
  });

  it("lower-cases an e-mail's domain, not its local part", () => {
    expect(value('email', ' Jane.Doe@Example.COM ')).toBe('Jane.Doe@example.com');
  });

  it('reads blank, null and undefined as not given', () => {
    for (const kind of ['phone', 'email', 'zip', 'state', 'text'] as const) {
      expect(value(kind, '   ')).toBeUndefined();
      expect(value(kind, null)).toBeUndefined();
      expect(value(kind, undefined)).toBeUndefined();
    }
  });

  it('refuses values that are not text or a number, saying what was given', () => {
    expect(value('phone', true)).toEqual({ problem: 'must be text; got true' });
    expect(value('text', [1, 2])).toEqual({ problem: 'must be one value; got a list' });
    expect(value('text', { a: 1 })).toEqual({ problem: 'must be text; got an object' });
    expect(value('zip', Number.NaN)).toEqual({ problem: 'must be text or a number; got NaN' });
    expect(value('zip', new Date(0))).toEqual({ problem: 'must be text; got a date' });
    expect(validate(op('phone-lookup'), { Phone: true })).toMatchObject({
      ok: false,
      message: 'Phone must be text; got true',
    });
  });

  it('prints large numbers in full, never in exponent form', () => {
    expect(value('phone', 1e21)).toBe('1000000000000000000000');
  });

  it('leaves what it cannot mend for validation to report', () => {
    expect(value('phone', '555-010-20')).toBe('55501020');
    expect(value('zip', '0213')).toBe('00213');
    expect(value('zip', 'AB1 2CD')).toBe('AB1 2CD');
    expect(validate(op('phone-lookup'), { Phone: '555-010-20' })).toMatchObject({
      ok: false,
      message: 'Phone must be 10 digits; got 8',
    });
  });
});

describe('invisible and control characters', () => {
  it.each([
    ['zero-width space', '\u200b'],
    ['zero-width non-joiner', '\u200c'],
    ['zero-width joiner', '\u200d'],
    ['word joiner', '\u2060'],
    ['byte order mark', '\ufeff'],
    ['left-to-right mark', '\u200e'],
    ['right-to-left mark', '\u200f'],
    ['right-to-left override', '\u202e'],
    ['first-strong isolate', '\u2068'],
    ['NUL', '\u0000'],
    ['escape', '\u001b'],
    ['DEL', '\u007f'],
  ])('removes a %s wherever it is', (_, ch) => {
    expect(value('text', `${ch}Ja${ch}ne${ch}`)).toBe('Jane');
    expect(value('phone', `555${ch}010${ch}2030`)).toBe('5550102030');
    expect(value('email', `jane${ch}@example.com${ch}`)).toBe('jane@example.com');
    expect(value('zip', `${ch}02134`)).toBe('02134');
    expect(validate(op('phone-lookup'), { Phone: `${ch}5550102030${ch}` })).toEqual({
      ok: true,
      input: { Phone: '5550102030' },
    });
  });

  it('turns tabs and line breaks into single spaces, not nothing', () => {
    expect(value('text', '12\u0000Main\tSt\r\nApt 4')).toBe('12Main St Apt 4');
  });

  it('leaves a value of nothing but invisible characters as not given', () => {
    expect(value('text', '\u200b\u200b\ufeff')).toBeUndefined();
  });
});

describe('bounds before patterns; every pattern linear', () => {
  // The earlier e-mail pattern backtracked quadratically: 10 s of CPU for a 120 KB cell.
  const hostile = [
    ['a 120 KB e-mail without a dot after the @', `a@${'b'.repeat(120_000)}`],
    ['a 120 KB e-mail of @ signs', '@'.repeat(120_000)],
    ['a 120 KB e-mail of dots', `a@${'.'.repeat(120_000)}`],
    ['a 120 KB e-mail of spaces and tabs', `a@b${' \t'.repeat(60_000)}.c`],
  ] as const;

  it.each(hostile)('refuses %s in well under a second', (_, email) => {
    const started = performance.now();
    const result = validate(op('email-verify'), { Email: email });
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({
      ok: false,
      message: `Email must be at most 100 characters; got ${email.length}`,
    });
    expect(elapsed).toBeLessThan(1000);
  });

  it('refuses such values just as fast in validateField, and for fields without a length bound', () => {
    const started = performance.now();
    expect(validateField(op('email-verify'), 'Email', `a@${'b'.repeat(120_000)}`)).toMatchObject({
      ok: false,
    });
    expect(validate(op('phone-lookup'), { Phone: `${'5 '.repeat(60_000)}` })).toMatchObject({
      ok: false,
      message: 'Phone is far too long; got 120000 characters',
    });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('the e-mail pattern is linear below the raw bound too (1000 characters, as past the 100 bound)', () => {
    for (const email of [`a@${'b'.repeat(998)}`, `${'a'.repeat(999)}@`, `a@b${'.'.repeat(997)}`]) {
      const started = performance.now();
      // 1000 validations: tens of milliseconds when linear; a backtracking pattern takes seconds.
      for (let i = 0; i < 1000; i++) validate(op('email-verify'), { Email: email });
      expect(performance.now() - started).toBeLessThan(5000);
    }
  });

  it('still tells a malformed e-mail from a long one', () => {
    expect(validate(op('email-verify'), { Email: 'jane@example' })).toMatchObject({
      ok: false,
      message: 'Email must end in a top-level domain of letters, such as .com; got "jane@example"',
    });
    expect(validate(op('email-verify'), { Email: 'jane@mail.example.co.uk' })).toMatchObject({ ok: true });
  });
});

// Raw values: any string or number, plus strings made of the characters people type in phones
// and ZIP codes, so that the interesting cases come up often.
const phoneish = fc.string({ unit: fc.constantFrom(...'0123456789()-.+/ 1'.split('')), maxLength: 20 });
const zipish = fc.string({ unit: fc.constantFrom(...'0123456789- \t'.split('')), maxLength: 12 });
const rawValue = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  phoneish,
  zipish,
  fc.integer(),
  fc.nat({ max: 99_999_999_999 }),
  fc.double(),
  fc.constantFrom(null, undefined, '', ' ', 0, -0),
);

describe('properties', () => {
  it.each(['phone', 'email', 'zip', 'state', 'text'] as const)(
    'normalising a %s value twice gives what normalising it once gives',
    (kind) => {
      fc.assert(
        fc.property(rawValue, (raw) => {
          const once = normaliseValue(kind, raw);
          if ('problem' in once) return;
          expect(normaliseValue(kind, once.value)).toEqual(once);
        }),
        { numRuns: 2000 },
      );
    },
  );

  it('a valid input validates again to itself (validation is idempotent)', () => {
    for (const o of OPERATIONS) {
      const fields = o.inputs.map((f) => f.name);
      fc.assert(
        fc.property(fc.dictionary(fc.constantFrom(...fields), rawValue), (raw) => {
          const first = validate(o, raw);
          if (!first.ok) return;
          expect(validate(o, first.input)).toEqual(first);
        }),
        { numRuns: 300 },
      );
    }
  });

  const everyField = OPERATIONS.flatMap((o) => o.inputs.map((f) => ({ op: o, field: f.name })));

  it.each([
    ['fc.jsonValue()', fc.jsonValue()],
    ['fc.anything()', fc.anything()],
    [
      'fc.anything() with every kind of value',
      fc.anything({
        withBigInt: true,
        withBoxedValues: true,
        withDate: true,
        withMap: true,
        withSet: true,
        withNullPrototype: true,
        withObjectString: true,
        withSparseArray: true,
        withTypedArray: true,
      }),
    ],
  ])('validation never throws on %s for any field of any operation', (_, arbitrary) => {
    for (const { op: o, field } of everyField) {
      fc.assert(
        fc.property(arbitrary, (v) => {
          const result = validate(o, { ...o.example, [field]: v });
          expect(typeof result.ok).toBe('boolean');
          if (!result.ok) {
            expect(result.issues.length).toBeGreaterThan(0);
            expect(result.message.length).toBeGreaterThan(0);
          }
        }),
        { numRuns: 100 },
      );
    }
    expect(everyField.length).toBe(32);
  });

  it('validation never throws on arbitrary whole inputs', () => {
    const names = [...new Set(OPERATIONS.flatMap((o) => o.inputs.map((f) => f.name)))];
    const input = fc.oneof(
      fc.anything(),
      fc.jsonValue(),
      fc.dictionary(fc.oneof(fc.constantFrom(...names), fc.string()), fc.oneof(rawValue, fc.jsonValue())),
    );
    for (const o of OPERATIONS) {
      fc.assert(
        fc.property(input, (raw) => {
          const result = validate(o, raw);
          if (result.ok) {
            // Whatever passes obeys the catalog's bounds and uses only the operation's field names.
            for (const [name, text] of Object.entries(result.input)) {
              const field = o.inputs.find((f) => f.name === name);
              expect(field).toBeDefined();
              if (field?.maxLength !== undefined) expect(text.length).toBeLessThanOrEqual(field.maxLength);
              if (field?.kind === 'phone') expect(text).toMatch(/^\d{10}$/);
              if (field?.kind === 'zip') expect(text).toMatch(/^\d{5}$/);
            }
          } else {
            expect(result.message).not.toBe('');
          }
        }),
        { numRuns: 500 },
      );
    }
  });
});
