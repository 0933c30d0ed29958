// The tools' input schemas accept what normalisation mends (issue 40): a model that sends
// "(555) 010-2030" is not told by the schema that it is wrong, and a schema never accepts what core
// then refuses. Each kind's `typed.pattern` against validateField, on the forms people type and on
// random strings of the characters that matter.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FIELD_KINDS,
  getOperation,
  type InputKind,
  type OperationId,
  operationInputSchema,
  validateField,
} from '../src/index.js';

const FIELDS: Record<Exclude<InputKind, 'email' | 'text'>, [op: string, field: string]> = {
  phone: ['phone-lookup', 'Phone'],
  zip: ['demographic-append', 'Zip'],
  state: ['demographic-append', 'State'],
};

/** The schema's pattern accepts the value exactly when core takes it as a value (blank is "left out"). */
function agree(kind: keyof typeof FIELDS, value: string): void {
  const [op, field] = FIELDS[kind];
  const pattern = new RegExp(FIELD_KINDS[kind].typed.pattern as string);
  const checked = validateField(getOperation(op as OperationId), field, value);
  expect(pattern.test(value), JSON.stringify(value)).toBe(checked.ok && checked.value !== undefined);
}

describe('what a tool field accepts', () => {
  it('accepts the forms people type, and refuses what validation refuses', () => {
    for (const phone of [
      '5550102030',
      '(555) 010-2030',
      '555.010.2030',
      '+1 555 010 2030',
      '1-555-010-2030',
      '555/010/2030',
    ])
      agree('phone', phone);
    for (const bad of ['555010203', '55501020301', '555-CALL-NOW', 'n/a', '=1+2', '', '()'])
      agree('phone', bad);
    for (const zip of [
      '02134',
      '2134',
      '501',
      '02134-1234',
      '021341234',
      '21341234',
      '2134-1234',
      '1234567',
      '12',
      'ab123',
    ])
      agree('zip', zip);
    for (const state of ['CA', 'ca', ' ny ', 'C', 'CAL', 'C1']) agree('state', state);
  });

  it('agrees with validation on random strings of digits and formatting (property)', () => {
    const chars = (alphabet: string) =>
      fc.string({ unit: fc.constantFrom(...alphabet.split('')), maxLength: 16 });
    fc.assert(
      fc.property(chars('0123456789 ().+-/1x'), (value) => agree('phone', value)),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(chars('0123456789 -'), (value) => agree('zip', value)),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(chars('aZ 1'), (value) => agree('state', value)),
      { numRuns: 500 },
    );
  });

  it('says per field what is accepted: formatting words only where formatting is mended', () => {
    const phone = operationInputSchema(getOperation('phone-lookup')).properties as Record<
      string,
      { description: string }
    >;
    expect(phone.Phone?.description).toBe(
      'Phone: 10 digits, as typed: "(555) 010-2030", "555.010.2030" and "+1 555 010 2030" are accepted',
    );
    const append = operationInputSchema(getOperation('email-append')).properties as Record<
      string,
      { description: string }
    >;
    expect(append.FName?.description).toBe('First name, at most 15 characters');
    const verify = operationInputSchema(getOperation('email-verify')).properties as Record<
      string,
      { description: string }
    >;
    expect(verify.Email?.description).toBe(
      'E-mail: an e-mail address such as jane.doe@example.com, at most 100 characters',
    );
    for (const schema of [phone, append, verify])
      for (const [name, property] of Object.entries(schema))
        if (name !== 'Phone' && name !== 'phone') expect(property.description).not.toContain('555');
  });
});
