// Planning rows on its own (row-planner.ts): each row blank, invalid (and why) or a request (and
// which), the same for every kind of file; a row read wrongly here is a transaction bought for
// nothing, or a row left unanswered.
import { getOperation, requestKey } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { BulkError } from '../src/run/bulk-error.js';
import { mapInput, rowPlanner } from '../src/run/row-planner.js';

const lookup = getOperation('phone-lookup');
const auto = getOperation('auto-append');

function plannerFor(op: typeof lookup, header: string[]) {
  return rowPlanner(op, header, mapInput(op, 'leads.csv', header, {}));
}

describe('mapInput', () => {
  it('stops before anything is sent when no column feeds the operation, naming the columns', () => {
    expect(() => mapInput(lookup, 'leads.csv', ['name', 'city'], {})).toThrow(BulkError);
    expect(() => mapInput(lookup, 'leads.csv', ['name', 'city'], {})).toThrow(
      /^leads\.csv: .+\. Nothing was sent\. Name the column with --map Field=Column \(columns: name, city\)$/,
    );
  });

  it('takes a column named by --map', () => {
    expect(mapInput(lookup, 'leads.csv', ['name', 'Mobile #'], { Phone: 'Mobile #' }).fields).toEqual({
      Phone: 1,
    });
  });
});

describe('rowPlanner', () => {
  it('makes a request of a valid row: its key is core request key of the normalised input', () => {
    const plan = plannerFor(lookup, ['name', 'phone']);
    expect(plan(['Jane', '(555) 010-2030'])).toEqual({
      kind: 'request',
      key: requestKey(lookup, { Phone: '5550102030' }),
      input: { Phone: '5550102030' },
    });
  });

  it('calls a row with nothing in it blank, saying what the operation needs', () => {
    const plan = plannerFor(lookup, ['name', 'phone']);
    expect(plan(['', ''])).toEqual({ kind: 'blank', message: 'blank row (Phone Lookup: Phone is required)' });
    expect(plan([])).toEqual({ kind: 'blank', message: 'blank row (Phone Lookup: Phone is required)' });
  });

  it("calls a row with other cells but none of the operation's fields invalid, not blank", () => {
    const plan = plannerFor(lookup, ['name', 'phone']);
    expect(plan(['Jane', ''])).toEqual({
      kind: 'invalid',
      message: 'no Phone in this row (Phone Lookup: Phone is required)',
    });
    // The same (empty) value in another row with nothing in it is still blank: not remembered.
    expect(plan(['', ''])).toMatchObject({ kind: 'blank' });
    expect(plan(['Jane', ''])).toMatchObject({ kind: 'invalid' });
  });

  it('says why an invalid row is refused', () => {
    const plan = plannerFor(lookup, ['phone']);
    expect(plan(['555010203'])).toEqual({ kind: 'invalid', message: 'Phone must be 10 digits; got 9' });
  });

  it('keeps the extra fields of a row longer than the header, and sends nothing for it', () => {
    const plan = plannerFor(lookup, ['name', 'phone']);
    expect(plan(['Jane', '5550102030', 'x', 'y'])).toEqual({
      kind: 'invalid',
      message:
        'the row has 4 fields but the header has 2; nothing is sent for it, and its extra fields are kept after the status column',
      trailing: ['x', 'y'],
    });
    expect(plan(['Jane', '5550102030'])).toMatchObject({ kind: 'request' });
  });

  it('refuses the request of a person forgotten at their request: invalid, with the reason, nothing sent', () => {
    const header = ['phone'];
    const refuse = (_op: unknown, input: { readonly [field: string]: string }) =>
      input.Phone === '5550102030' ? 'forgotten at their request' : undefined;
    const plan = rowPlanner(lookup, header, mapInput(lookup, 'leads.csv', header, {}), refuse);
    expect(plan(['(555) 010-2030'])).toEqual({ kind: 'invalid', message: 'forgotten at their request' });
    expect(plan(['5550102031'])).toMatchObject({ kind: 'request', input: { Phone: '5550102031' } });
  });

  it('reads every mapped column of a row: two rows that differ in any of them are two plans', () => {
    const plan = plannerFor(auto, ['phone', 'email']);
    const both = plan(['5550102030', 'a@b.co']);
    const phoneOnly = plan(['5550102030', '']);
    const emailOnly = plan(['', 'a@b.co']);
    expect(both).toMatchObject({ kind: 'request', input: { Phone: '5550102030', Email: 'a@b.co' } });
    expect(phoneOnly).toMatchObject({ kind: 'request', input: { Phone: '5550102030' } });
    expect(emailOnly).toMatchObject({ kind: 'request', input: { Email: 'a@b.co' } });
    // Cells that run together must not be read as the same row ("5550102030" + "" vs "555010203" + "0").
    expect(plan(['555010203', '0'])).toMatchObject({ kind: 'invalid' });
    // The same spelling again gives the same plan.
    expect(plan(['5550102030', 'a@b.co'])).toEqual(both);
  });
});
