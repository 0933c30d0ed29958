import { describe, expect, it } from 'vitest';
import { getOperation, OPERATIONS, validate, validateField } from '../src/index.js';

describe('validateField', () => {
  const phoneLookup = getOperation('phone-lookup');

  it('normalises a formatted phone number', () => {
    expect(validateField(phoneLookup, 'Phone', '(555) 010-2030')).toEqual({ ok: true, value: '5550102030' });
  });

  it("refuses a short phone number with validate()'s own message", () => {
    const one = validateField(phoneLookup, 'Phone', '555010203');
    const whole = validate(phoneLookup, { Phone: '555010203' });
    expect(one).toEqual({ ok: false, message: 'Phone must be 10 digits; got 9' });
    expect(whole.ok).toBe(false);
    if (!one.ok && !whole.ok) expect(whole.message).toBe(one.message);
  });

  it('reads a blank as not given, leaving requirements to the rules', () => {
    expect(validateField(phoneLookup, 'Phone', '  ')).toEqual({ ok: true, value: undefined });
  });

  it('uses the bound of the operation it is asked about', () => {
    const sixteen = 'A'.repeat(16);
    expect(validateField(getOperation('phone-append'), 'LName', sixteen).ok).toBe(false);
    expect(validateField(getOperation('email-append'), 'LName', sixteen).ok).toBe(true);
  });

  it('names a field the operation does not take', () => {
    const check = validateField(phoneLookup, 'Email', 'a@b.co');
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).toContain('does not take Email');
  });

  it("agrees with validate() on every operation's example, field by field", () => {
    for (const op of OPERATIONS) {
      const whole = validate(op, op.example);
      expect(whole.ok).toBe(true);
      if (!whole.ok) continue;
      for (const [name, value] of Object.entries(op.example)) {
        expect(validateField(op, name, value)).toEqual({ ok: true, value: whole.input[name] });
      }
    }
  });
});
