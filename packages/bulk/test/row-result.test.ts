// A row's result from its answer (row-result.ts): formula neutralisation of the service's text, and
// answers that differ from the API description (counted mismatches, extra fields, paid unreadable).
import { getOperation } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { neutralise, resultOf } from '../src/run/row-result.js';

describe('formula neutralisation', () => {
  it('puts a quote before text a spreadsheet would run, and nothing before anything else', () => {
    for (const risky of ['=1+2', '+1-2', '-2', '@SUM(A1)', '\t=1', '\r=1'])
      expect(neutralise(risky)).toBe(`'${risky}`);
    for (const safe of ['Jane', '', '1+2', " '=x", 'a=b']) expect(neutralise(safe)).toBe(safe);
  });

  it('keeps numbers and booleans as they are, and null as empty', () => {
    const op = getOperation('phone-append');
    const result = resultOf(
      op,
      {
        kind: 'record',
        status: 200,
        record: {
          Phone: '=cmd',
          PhoneType: '',
          FirstSeen: '',
          LastSeen: '',
          TelcoName: null,
          PHV: -3,
          trace: '+x',
        },
        extra: {},
        mismatches: [],
        raw: '{}',
      },
      ['Phone', 'TelcoName', 'PHV', 'trace'],
    );
    // `coded`: the breakdown's PhoneType, counted whether or not it is an output column.
    expect(result).toEqual({
      kind: 'ok',
      status: 'ok',
      cells: ["'=cmd", '', '-3', "'+x"],
      mismatches: 0,
      coded: [''],
    });
  });
});

describe('answers that differ from the description', () => {
  const op = getOperation('phone-append');
  const record = {
    Phone: '5551234567',
    PhoneType: '',
    FirstSeen: '',
    LastSeen: '',
    TelcoName: '',
    PHV: 1,
    trace: '',
  };

  it('says how many fields were not as documented, and keeps unknown fields as extra cells (neutralised)', () => {
    const result = resultOf(
      op,
      {
        kind: 'record',
        status: 200,
        record,
        extra: { DID: '=evil', 'Name.Nick': 7 },
        mismatches: [
          { field: 'PhoneType', problem: 'case', detail: 'phoneType' },
          { field: 'DID', problem: 'unknown', detail: '' },
          { field: 'Name.Nick', problem: 'unknown', detail: '' },
        ],
        raw: '{}',
      },
      ['Phone', 'DID'],
    );
    expect(result.status).toBe('ok (3 fields not as documented)');
    // A client can name an extra field as an output column (the CLI's --fields): it is filled like a documented one.
    expect(result.cells).toEqual(['5551234567', "'=evil"]);
    expect(result.extra).toEqual({ DID: "'=evil", 'Name.Nick': '7' });
  });

  it('marks a paid, unreadable answer with the reason', () => {
    const now = resultOf(
      op,
      { kind: 'unreadable', status: 200, raw: '<html>', reason: 'the body is not JSON' },
      ['Phone'],
    );
    expect(now).toEqual({
      kind: 'unreadable',
      status: 'paid, unreadable: the body is not JSON',
      cells: [''],
    });
  });
});
