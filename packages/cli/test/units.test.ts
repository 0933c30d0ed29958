// The small pure pieces: flag parsing, formula neutralisation, output header naming.
import { getOperation } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { outputHeader } from '../src/bulk.js';
import { flagOf, normaliseFieldFlags } from '../src/main.js';
import { parseDuration, parseMap, parseRate } from '../src/options.js';
import { neutralise, resultOf } from '../src/row-result.js';

describe('field flags', () => {
  it('accepts any case and punctuation of a field name, and common aliases', () => {
    const lookup = getOperation('phone-lookup');
    expect(normaliseFieldFlags(lookup, ['--phone', '1', '--PHONE=2', '--Phone', '3'])).toEqual([
      '--Phone',
      '1',
      '--Phone=2',
      '--Phone',
      '3',
    ]);
    const tcpa = getOperation('tcpa-verify');
    expect(tcpa.inputs.map(flagOf)).toEqual(['phone', 'last-name']);
    expect(
      normaliseFieldFlags(tcpa, ['--Phone', '1', '--last_name', 'x', '--LastName', 'y', '--last-name', 'z']),
    ).toEqual(['--phone', '1', '--last-name', 'x', '--last-name', 'y', '--last-name', 'z']);
    const append = getOperation('phone-append');
    expect(normaliseFieldFlags(append, ['--first-name', 'A', '--lname', 'B', '--zip-code', '1'])).toEqual([
      '--FName',
      'A',
      '--LName',
      'B',
      '--Zip',
      '1',
    ]);
  });

  it('leaves the command options, and everything after --, alone', () => {
    const lookup = getOperation('phone-lookup');
    expect(normaliseFieldFlags(lookup, ['--in', 'a.csv', '--json', '--', '--phone'])).toEqual([
      '--in',
      'a.csv',
      '--json',
      '--',
      '--phone',
    ]);
  });
});

describe('option values', () => {
  it('reads durations', () => {
    expect(parseDuration('30d', '--max-age')).toBe(30 * 86_400_000);
    expect(parseDuration('12h', '--max-age')).toBe(12 * 3_600_000);
    expect(parseDuration('90', '--max-age')).toBe(90_000);
    expect(parseDuration('forever', '--max-age')).toBe(Number.POSITIVE_INFINITY);
    expect(() => parseDuration('soon', '--max-age')).toThrow(/duration/);
  });

  it('reads rates per second or per minute', () => {
    expect(parseRate('10')).toBe(10);
    expect(parseRate('10/s')).toBe(10);
    expect(parseRate('600/m')).toBe(10);
    expect(() => parseRate('0/s')).toThrow(/--rate/);
    expect(() => parseRate('fast')).toThrow(/--rate/);
  });

  it('reads --map pairs, keeping spaces and = in column names', () => {
    expect(parseMap(['Phone=Mobile #', 'Zip=a=b'])).toEqual({ Phone: 'Mobile #', Zip: 'a=b' });
    expect(() => parseMap(['Phone'])).toThrow(/Field=Column/);
  });
});

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
    expect(result).toEqual({ kind: 'ok', status: 'ok', cells: ["'=cmd", '', '-3', "'+x"], mismatches: 0 });
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
    // --fields can name an extra field: it is filled like a documented one.
    expect(result.cells).toEqual(['5551234567', "'=evil"]);
    expect(result.extra).toEqual({ DID: "'=evil", 'Name.Nick': '7' });
  });

  it('marks a paid, unreadable answer (also as an earlier version stored it) with the reason', () => {
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
    const old = resultOf(
      op,
      {
        kind: 'error',
        error: {
          code: 'bad-response',
          status: 200,
          message: 'The service answered with something unexpected.',
        },
      },
      ['Phone'],
    );
    expect(old.status).toMatch(/^paid, unreadable: /);
    expect(old.kind).toBe('unreadable');
  });

  it('reads an answer journaled by an earlier version (no extra, no mismatches) as ok', () => {
    const old = { kind: 'record', status: 200, record } as unknown as Parameters<typeof resultOf>[1];
    expect(resultOf(op, old, ['Phone']).status).toBe('ok');
  });
});

describe('output header', () => {
  it('appends output columns and status, renaming those an input column already has', () => {
    const op = getOperation('email-verify');
    expect(outputHeader(op, ['email', 'Result'], ['Email', 'Result'])).toEqual([
      'email',
      'Result',
      'Email (email-verify)',
      'Result (email-verify)',
      'status',
    ]);
  });
});
