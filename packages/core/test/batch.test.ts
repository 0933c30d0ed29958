// What the clients build on: request keys, output columns and flattening, row plans and the
// mapping of a table's header row to input fields.
import { describe, expect, it } from 'vitest';
import {
  chooseColumns,
  flattenRecord,
  mapColumns,
  OPERATIONS,
  type Operation,
  outputColumns,
  planRow,
  readResponse,
  requestKey,
  rowInput,
  validate,
} from '../src/index.js';
import { KEY, op } from './api.js';

function keyOf(o: Operation, raw: Record<string, unknown>): string {
  const checked = validate(o, raw);
  if (!checked.ok) throw new Error(checked.message);
  return requestKey(o, checked.input);
}

describe('requestKey', () => {
  it('is the same for the same normalised input, whatever its formatting and field order', () => {
    const demographic = op('demographic-append');
    const a = keyOf(demographic, {
      FName: 'Jane',
      LName: 'Doe',
      Address1: '12 Main St',
      Zip: '02134',
      Phone: '5550102030',
    });
    const b = keyOf(demographic, {
      phone: '(555) 010-2030',
      zip: 2134,
      address1: ' 12  Main St ',
      LName: 'Doe',
      fname: 'Jane',
    });
    expect(b).toBe(a);
    expect(keyOf(op('email-verify'), { Email: 'a@EXAMPLE.com' })).toBe(
      keyOf(op('email-verify'), { Email: 'a@example.com' }),
    );
  });

  it('differs between operations, values and fields', () => {
    const keys = new Set([
      keyOf(op('phone-lookup'), { Phone: '5550102030' }),
      keyOf(op('auto-append'), { Phone: '5550102030' }),
      keyOf(op('phone-lookup'), { Phone: '5550102031' }),
      keyOf(op('auto-append'), { Email: 'a@b.co' }),
      keyOf(op('auto-append'), { Phone: '5550102030', Email: 'a@b.co' }),
    ]);
    expect(keys.size).toBe(5);
  });

  it('holds the operation and the input, and no key (it takes none)', () => {
    const key = keyOf(op('phone-lookup'), { Phone: '5550102030' });
    expect(key).toBe('phone-lookup:[["Phone","5550102030"]]');
    expect(key).not.toContain(KEY);
    expect(requestKey.length).toBe(2);
  });

  it('keeps its exact form, which answers already kept are found by: only the fields given, in catalog order', () => {
    // A key spelt differently (a field not given written as null, another order) would miss every
    // answer a journal or a shared store already holds, and buy it again.
    expect(keyOf(op('auto-append'), { Email: 'a@b.co' })).toBe('auto-append:[["Email","a@b.co"]]');
    expect(keyOf(op('auto-append'), { Email: 'a@b.co', Phone: '5550102030' })).toBe(
      'auto-append:[["Phone","5550102030"],["Email","a@b.co"]]',
    );
  });
});

describe('output columns and flattening', () => {
  it('lists Auto Append columns, prefixing the repeated vehicle groups', () => {
    const columns = outputColumns(op('auto-append'));
    for (const c of [
      'FName',
      'Suffix',
      'City',
      'Z4',
      'CBSA',
      'PID',
      'HHID',
      'Vehicle.Make',
      'Vehicle2.Make',
      'Vehicle4.ODate',
    ]) {
      expect(columns).toContain(c);
    }
    expect(columns).not.toContain('Make');
    expect(columns).toHaveLength(4 + 19 + 3 + 4 * 9);
  });

  it('lists ID Verify, Demographic Append and Phone Append columns', () => {
    expect(outputColumns(op('id-verify'))).toContain('IDVerifyScore');
    expect(outputColumns(op('id-verify'))).toHaveLength(28);
    expect(outputColumns(op('demographic-append'))).toHaveLength(43);
    expect(outputColumns(op('phone-append'))).toEqual([
      'Phone',
      'PhoneType',
      'FirstSeen',
      'LastSeen',
      'TelcoName',
      'PHV',
      'trace',
    ]);
    expect(outputColumns(op('tcpa-verify'))).toEqual(['verification_code', 'phone_type']);
  });

  it.each(OPERATIONS.map((o) => [o.title, o] as const))(
    '%s: columns are distinct and defaults exist',
    (_, o) => {
      const columns = outputColumns(o);
      expect(new Set(columns).size).toBe(columns.length);
      for (const c of o.defaultColumns) expect(columns).toContain(c);
    },
  );

  it('flattens a record read from a response into one row, in column order', () => {
    const o = op('auto-append');
    const outcome = readResponse(o, {
      status: 200,
      headers: {},
      body: JSON.stringify({
        Name: { FName: 'JANE', LName: 'DOE' },
        Address: { City: 'BOSTON', Zip: '02134' },
        Vehicle2: { Make: 'FORD', Year: '2019' },
      }),
    });
    if (outcome.kind !== 'record') throw new Error('expected a record');
    expect(
      flattenRecord(o, outcome.record, ['FName', 'City', 'Vehicle2.Make', 'Vehicle2.Year', 'Vehicle.Make']),
    ).toEqual(['JANE', 'BOSTON', 'FORD', '2019', '']);
    const all = flattenRecord(o, outcome.record);
    expect(all).toHaveLength(outputColumns(o).length);
    expect(all[outputColumns(o).indexOf('Zip')]).toBe('02134');
  });

  it('keeps typed leaves (a boolean Deliverable, a number PHV) and shows a null AptType as an empty cell', () => {
    const lookup = readResponse(op('phone-lookup'), {
      status: 200,
      headers: {},
      body: JSON.stringify({ Address: { Deliverable: false, AptType: null } }),
    });
    if (lookup.kind !== 'record') throw new Error('expected a record');
    expect(flattenRecord(op('phone-lookup'), lookup.record, ['Deliverable', 'AptType', 'City'])).toEqual([
      false,
      '',
      '',
    ]);
    expect(lookup.record.Address).toMatchObject({ AptType: null });
    expect(flattenRecord(op('phone-append'), { PHV: 4 }, ['PHV', 'Phone'])).toEqual([4, '']);
  });

  it('chooseColumns parses a list, ignoring case, and keeps the order given', () => {
    expect(chooseColumns(op('auto-append'), 'FName, city,vehicle2.make')).toEqual({
      ok: true,
      columns: ['FName', 'City', 'Vehicle2.Make'],
    });
    expect(chooseColumns(op('id-verify'), ['IDVerifyScore'])).toEqual({
      ok: true,
      columns: ['IDVerifyScore'],
    });
  });

  it('chooseColumns gives the defaults when nothing is chosen', () => {
    for (const list of [undefined, '', ' , ', []]) {
      expect(chooseColumns(op('phone-lookup'), list)).toEqual({
        ok: true,
        columns: [...op('phone-lookup').defaultColumns],
      });
    }
  });

  it('chooseColumns names the columns that do not exist', () => {
    const result = chooseColumns(op('phone-lookup'), 'FName, Vehicle.Make, Shoe size');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toMatch(
        /^Phone Lookup has no column "Vehicle\.Make", "Shoe size"; its columns are FName, /,
      );
    }
  });
});

describe('planRow', () => {
  it('tells empty rows, invalid rows and requests apart; a repeated request has the same key', () => {
    const plans = [
      { Phone: '5550102030' },
      { Phone: '(555) 010-2030' },
      { Phone: '' },
      { Phone: '555' },
      { Phone: 5550109999 },
      {},
      { Phone: '+1 555 010 2030' },
    ].map((row) => planRow(op('phone-lookup'), row));
    expect(plans.map((r) => r.kind)).toEqual([
      'request',
      'request',
      'empty',
      'invalid',
      'request',
      'empty',
      'request',
    ]);
    expect(plans[3]).toEqual({ kind: 'invalid', message: 'Phone must be 10 digits; got 3' });
    const keys = plans.flatMap((r) => (r.kind === 'request' ? [r.key] : []));
    expect(new Set(keys).size).toBe(2);
    expect(plans[4]).toMatchObject({ input: { Phone: '5550109999' } });
  });

  it('quotes an invalid cell as it was typed, not as normalisation left it (issue 40)', () => {
    const messages = ['n/a', '=1+2', ' 555-CALL-NOW ', '(555) 010-203'].map(
      (Phone) => planRow(op('phone-lookup'), { Phone }) as { message?: string },
    );
    expect(messages.map((m) => m.message)).toEqual([
      'Phone must be numeric only (10 digits); got "n/a"',
      'Phone must be numeric only (10 digits); got "=1+2"',
      'Phone must be numeric only (10 digits); got "555-CALL-NOW"',
      'Phone must be 10 digits; got 9',
    ]);
    expect(planRow(op('demographic-append'), { Phone: '5550102030', Zip: 'ab-12' })).toEqual({
      kind: 'invalid',
      message: 'Zip must be 5 digits; got "ab-12"',
    });
  });

  it('a row with other cells but none of the fields says which field is missing; only an empty row is blank', () => {
    expect(planRow(op('phone-lookup'), { Phone: '' }, { otherCells: true })).toEqual({
      kind: 'invalid',
      message: 'no Phone in this row (Phone Lookup: Phone is required)',
    });
    expect(planRow(op('tcpa-verify'), {}, { otherCells: true })).toEqual({
      kind: 'invalid',
      message: 'no phone or last_name in this row (TCPA Verify: phone and last_name are required)',
    });
    expect(planRow(op('phone-lookup'), { Phone: '  ' }, { otherCells: false })).toEqual({ kind: 'empty' });
  });

  it('planRow reports a broken rule and carries the clean input of a valid row', () => {
    expect(planRow(op('tcpa-verify'), { phone: '5550102030', last_name: '' })).toEqual({
      kind: 'invalid',
      message: 'TCPA Verify: last_name is required',
    });
    expect(planRow(op('tcpa-verify'), { phone: '5550102030', last_name: 'Doe' })).toMatchObject({
      kind: 'request',
      input: { phone: '5550102030', last_name: 'Doe' },
    });
  });
});

describe('mapColumns', () => {
  it('maps header aliases to fields', () => {
    const mapping = mapColumns(op('demographic-append'), [
      'id',
      'first_name',
      'Last Name',
      'Street Address',
      'Postal Code',
      'Phone Number',
    ]);
    expect(mapping).toEqual({
      fields: { FName: 1, LName: 2, Address1: 3, Zip: 4, Phone: 5 },
      problem: undefined,
    });
    expect(rowInput(mapping, ['7', 'Jane', 'Doe', '12 Main St', 2134, '555.010.2030'])).toEqual({
      FName: 'Jane',
      LName: 'Doe',
      Address1: '12 Main St',
      Zip: 2134,
      Phone: '555.010.2030',
    });
  });

  it('maps lowercase TCPA fields from ordinary headers', () => {
    expect(mapColumns(op('tcpa-verify'), ['Phone Number', 'Surname'])).toEqual({
      fields: { phone: 0, last_name: 1 },
      problem: undefined,
    });
  });

  it('lets overrides win, and reports overrides that name no field or no column', () => {
    expect(mapColumns(op('phone-lookup'), ['Phone', 'Mobile #'], { phone: 'Mobile #' }).fields).toEqual({
      Phone: 1,
    });
    expect(mapColumns(op('phone-lookup'), ['Mobile #'], { Fax: 'Mobile #' }).problem).toBe(
      'Phone Lookup has no field Fax; its fields are Phone',
    );
    expect(mapColumns(op('phone-lookup'), ['Mobile #'], { Phone: 'Cell' }).problem).toBe(
      'no column "Cell" for Phone; the columns are Mobile #',
    );
  });

  it('reports a required column that is missing', () => {
    expect(mapColumns(op('phone-append'), ['First Name', 'Last Name', 'Address']).problem).toBe(
      'no column found: Zip is required',
    );
    expect(mapColumns(op('email-lookup'), ['Name', 'Phone']).problem).toBe(
      'no column found: Email is required',
    );
    expect(mapColumns(op('auto-append'), ['Full Name', 'Address']).problem).toMatch(
      /^no column found: give Phone, or Email, or FullName, Address1 and Zip; /,
    );
  });
});
