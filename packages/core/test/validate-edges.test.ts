// Validation at its edges, each named by what a mistake there would cost: a request sent (and paid)
// that the service refuses, a message that does not say which field, a rule that holds when it
// should break.
import { describe, expect, it } from 'vitest';
import {
  checkRule,
  inputText,
  MAX_RAW_INPUT_CHARS,
  ruleFields,
  validate,
  validateField,
} from '../src/index.js';
import { op } from './api.js';

const given =
  (...names: string[]) =>
  (f: string) =>
    names.includes(f);

describe('a rule that one field needs others', () => {
  const rule = { kind: 'needs', field: 'A', groups: [['B', 'C'], ['D']] } as const;

  it('holds when one whole group is given, breaks when each group is only partly given', () => {
    expect(checkRule(rule, given('A', 'D'))).toBeUndefined();
    expect(checkRule(rule, given('A', 'B', 'C'))).toBeUndefined();
    expect(checkRule(rule, given('A', 'B'))).toBe('A needs B and C, or D as well');
    expect(checkRule(rule, given('B'))).toBeUndefined();
  });

  it('names the field and every field of its groups', () => {
    expect(ruleFields(rule)).toEqual(['A', 'B', 'C', 'D']);
  });

  it("is the field of ID Verify's issue when Address1 comes without Zip", () => {
    const result = validate(op('id-verify'), { Address1: '12 Main St' });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues.map((i) => i.field)).toEqual(['Address1+Zip']);
  });
});

describe('the raw length bound', () => {
  const auto = op('auto-append');
  const withName = (name: string) => ({ FullName: name, Address1: '12 Main St', Zip: '02134' });

  it('refuses a value past it, for a field with no length of its own, naming the field', () => {
    const long = 'a'.repeat(MAX_RAW_INPUT_CHARS + 1);
    expect(validate(auto, withName(long))).toMatchObject({
      ok: false,
      message: `FullName is far too long; got ${MAX_RAW_INPUT_CHARS + 1} characters`,
    });
    expect(validateField(auto, 'FullName', long)).toEqual({
      ok: false,
      message: `FullName is far too long; got ${MAX_RAW_INPUT_CHARS + 1} characters`,
    });
    expect(validateField(auto, 'Email', `${'a'.repeat(MAX_RAW_INPUT_CHARS)}@x.com`)).toEqual({
      ok: false,
      message: `Email must be at most 100 characters; got ${MAX_RAW_INPUT_CHARS + 6}`,
    });
  });

  it('lets a value of exactly the bound through to normalisation', () => {
    const spaced = `Jane${' '.repeat(MAX_RAW_INPUT_CHARS - 8)}Doe.`;
    expect(spaced.length).toBe(MAX_RAW_INPUT_CHARS);
    expect(validateField(auto, 'FullName', spaced)).toEqual({ ok: true, value: 'Jane Doe.' });
  });
});

describe('values that are not text', () => {
  it('are refused with the field named, in validate and validateField alike', () => {
    expect(validate(op('phone-lookup'), { Phone: true })).toMatchObject({
      ok: false,
      issues: [{ field: 'Phone', message: 'Phone must be text; got true' }],
    });
    expect(validateField(op('phone-lookup'), 'Phone', true)).toEqual({
      ok: false,
      message: 'Phone must be text; got true',
    });
  });

  it('are refused whole when the input is no set of named fields', () => {
    expect(validate(op('phone-lookup'), ['5550102030'])).toMatchObject({
      ok: false,
      issues: [{ field: '(input)', message: 'The input must be a set of named fields' }],
    });
  });
});

describe('a field under two spellings, one of them blank', () => {
  it('takes the value given: a blank spelling is no second value', () => {
    expect(validate(op('phone-lookup'), { Phone: '', phone: '5550102030' })).toEqual({
      ok: true,
      input: { Phone: '5550102030' },
    });
  });
});

describe('names', () => {
  it('lists every field an operation takes when given one it does not', () => {
    const takes = 'it takes Phone, Email, FullName, Address1, Zip';
    expect(validateField(op('auto-append'), 'City', 'Boston')).toEqual({
      ok: false,
      message: `Auto Append does not take City; ${takes}`,
    });
    expect(validate(op('auto-append'), { Phone: '5550102030', City: 'Boston' })).toMatchObject({
      ok: false,
      message: expect.stringContaining(`Auto Append does not take City; ${takes}`),
    });
  });

  it('words a clean input as the API names its fields, in order', () => {
    expect(inputText({ Phone: '5550102030', LName: 'Doe' })).toBe('Phone 5550102030, LName Doe');
    expect(inputText({})).toBe('');
  });
});
