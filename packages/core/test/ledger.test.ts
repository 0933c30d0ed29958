// The spend ledger's lines: written with the shape or not at all, read back skipping (and counting)
// torn and garbage lines, and totalled by UTC day or month per service origin and operation.
import { describe, expect, it } from 'vitest';
import {
  grandTotals,
  isLocalOrigin,
  type LedgerEntry,
  ledgerLine,
  ledgerOrigin,
  OPERATIONS,
  operationOrigin,
  originTotals,
  readLedger,
  sinceProblem,
  spendTotals,
} from '../src/index.js';

const SANDBOX = 'http://127.0.0.1';
const REAL = 'https://api.tdg1.io';

function entry(over: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    v: 1,
    at: '2026-11-25T14:03:07.412Z',
    operation: 'phone-lookup',
    origin: REAL,
    client: 'cli',
    run: '5b0f3c1e-8f0a-4a7e-9a51-0d2b6c1f7e44',
    count: 3,
    ...over,
  };
}

describe('ledgerOrigin', () => {
  it.each([
    ['https://api.tdg1.io', 'https://api.tdg1.io'],
    ['https://API.Example.com:443/v2/', 'https://api.example.com'],
    ['HTTP://127.0.0.1:8787', 'http://127.0.0.1:8787'],
    ['http://localhost:80/x?key=secret#f', 'http://localhost'],
    ['https://user:secret-key@api.example.com:8443/path', 'https://api.example.com:8443'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
  ])('%s is recorded as %s: no path, query, user part or default port', (url, origin) => {
    expect(ledgerOrigin(url)).toBe(origin);
  });

  it('is undefined for what is not a URL', () => {
    expect(ledgerOrigin('api.example.com')).toBeUndefined();
    expect(ledgerOrigin('')).toBeUndefined();
  });

  it("operationOrigin is the origin of the operation's own base (v2 or v3)", () => {
    const bases = { baseUrl: 'https://V2.example.com/api', baseUrlV3: 'https://v3.example.com:8443/' };
    const versions = new Set(OPERATIONS.map((op) => op.version));
    expect(versions).toEqual(new Set(['v2', 'v3']));
    for (const op of OPERATIONS)
      expect(operationOrigin(op, bases), op.id).toBe(
        op.version === 'v2' ? 'https://v2.example.com' : 'https://v3.example.com:8443',
      );
  });
});

describe('ledgerLine', () => {
  it('is one line of JSON ending in a line break, and reads back as it was', () => {
    const line = ledgerLine(entry({ file: 'leads.csv' }));
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(readLedger(line)).toEqual({ entries: [entry({ file: 'leads.csv' })], skipped: 0 });
  });

  it('writes only the fields of an entry (nothing else an object carries)', () => {
    const given = { ...entry(), phone: '5550102030' } as LedgerEntry;
    expect(ledgerLine(given)).not.toContain('5550102030');
  });

  it.each([
    ['a path for the file', { file: '/home/jane/leads.csv' }],
    ['a Windows path for the file', { file: 'C:\\Users\\jane\\leads.csv' }],
    ['an origin with a path', { origin: 'https://api.example.com/v2' }],
    ['an origin with a user part', { origin: 'https://key@api.example.com' }],
    ['a count of 0', { count: 0 }],
    ['a fractional count', { count: 1.5 }],
    ['an unknown operation', { operation: 'phone-guess' as LedgerEntry['operation'] }],
    ['an unknown client', { client: 'excel' as LedgerEntry['client'] }],
    ['a local time', { at: '2026-11-25T14:03:07+01:00' }],
    ['an empty run id', { run: '' }],
  ])('refuses %s (a bug of the writer, never written)', (_, over) => {
    expect(() => ledgerLine(entry(over))).toThrow(TypeError);
  });
});

describe('readLedger', () => {
  it('reads every line, ignoring blank ones', () => {
    const text = `${ledgerLine(entry())}\n\n${ledgerLine(entry({ count: 1 }))}   \n`;
    expect(readLedger(text)).toEqual({ entries: [entry(), entry({ count: 1 })], skipped: 0 });
  });

  it('skips and counts a torn last line (a crash mid-write), keeping the rest', () => {
    const whole = ledgerLine(entry());
    const torn = ledgerLine(entry({ count: 7 })).slice(0, 40);
    expect(readLedger(whole + torn)).toEqual({ entries: [entry()], skipped: 1 });
  });

  it('skips a torn line in the middle and reads the lines after it', () => {
    const torn = ledgerLine(entry({ count: 7 })).slice(0, 25);
    const text = `${ledgerLine(entry())}${torn}\n${ledgerLine(entry({ count: 2 }))}${ledgerLine(entry({ count: 4 }))}`;
    const read = readLedger(text);
    expect(read.skipped).toBe(1);
    expect(read.entries.map((e) => e.count)).toEqual([3, 2, 4]);
  });

  it('skips garbage, other JSON and lines of another shape or version, and never throws', () => {
    const lines = [
      'garbage',
      '\u0000\u0001\u0002',
      '{',
      'null',
      '42',
      '"text"',
      '[1,2]',
      '{}',
      JSON.stringify({ ...entry(), v: 2 }),
      JSON.stringify({ ...entry(), count: '3' }),
      JSON.stringify({ ...entry(), at: 'yesterday' }),
      JSON.stringify({ ...entry(), at: '2026-13-45T99:99:99Z' }),
      JSON.stringify({ ...entry(), file: '../../etc/passwd' }),
      ledgerLine(entry()).trim(),
    ];
    const read = readLedger(lines.join('\n'));
    expect(read).toEqual({ entries: [entry()], skipped: lines.length - 1 });
  });

  it('an empty ledger is empty', () => {
    expect(readLedger('')).toEqual({ entries: [], skipped: 0 });
  });
});

describe('spendTotals', () => {
  const entries = [
    entry({ at: '2026-10-31T23:59:59.999Z', count: 5 }),
    entry({ at: '2026-11-01T00:00:00.000Z', count: 2 }),
    entry({ at: '2026-11-01T08:00:00.000Z', operation: 'email-verify', count: 4 }),
    entry({ at: '2026-11-02T10:00:00.000Z', count: 1, client: 'mcp' }),
    entry({ at: '2026-11-02T11:00:00.000Z', origin: SANDBOX, count: 286 }),
  ];

  it('adds up by UTC month, per origin and operation, sorted', () => {
    expect(spendTotals(entries, { by: 'month' })).toEqual([
      { period: '2026-10', origin: REAL, operation: 'phone-lookup', transactions: 5 },
      { period: '2026-11', origin: SANDBOX, operation: 'phone-lookup', transactions: 286 },
      { period: '2026-11', origin: REAL, operation: 'email-verify', transactions: 4 },
      { period: '2026-11', origin: REAL, operation: 'phone-lookup', transactions: 3 },
    ]);
  });

  it('adds up by UTC day: a second before midnight UTC is the day before', () => {
    expect(spendTotals(entries, { by: 'day' })).toEqual([
      { period: '2026-10-31', origin: REAL, operation: 'phone-lookup', transactions: 5 },
      { period: '2026-11-01', origin: REAL, operation: 'email-verify', transactions: 4 },
      { period: '2026-11-01', origin: REAL, operation: 'phone-lookup', transactions: 2 },
      { period: '2026-11-02', origin: SANDBOX, operation: 'phone-lookup', transactions: 286 },
      { period: '2026-11-02', origin: REAL, operation: 'phone-lookup', transactions: 1 },
    ]);
  });

  it('keeps what was recorded since a month or a day', () => {
    expect(spendTotals(entries, { by: 'month', since: '2026-11' }).map((r) => r.period)).toEqual([
      '2026-11',
      '2026-11',
      '2026-11',
    ]);
    expect(spendTotals(entries, { by: 'day', since: '2026-11-02' })).toHaveLength(2);
    expect(spendTotals(entries, { by: 'day', since: '2026-12-01' })).toEqual([]);
  });

  it('refuses a since that is not a real month or day', () => {
    expect(() => spendTotals(entries, { by: 'month', since: '2026-13' })).toThrow(RangeError);
    expect(() => spendTotals(entries, { by: 'month', since: 'last week' })).toThrow(/YYYY-MM/);
  });

  it('originTotals adds up each service apart', () => {
    expect(originTotals(spendTotals(entries, { by: 'month' }))).toEqual([
      { origin: SANDBOX, transactions: 286 },
      { origin: REAL, transactions: 12 },
    ]);
  });

  it('tells sandboxes on this machine (any port) from real services, and totals each kind (issue 40)', () => {
    for (const local of [SANDBOX, 'http://127.0.0.1:8787', 'http://localhost:9000', 'https://[::1]:8443'])
      expect(isLocalOrigin(local), local).toBe(true);
    for (const real of [REAL, 'https://api.example.com:8443', 'https://127.example.com'])
      expect(isLocalOrigin(real), real).toBe(false);
    const rows = spendTotals([...entries, entry({ origin: 'http://127.0.0.1:8787', count: 4 })], {
      by: 'month',
    });
    expect(grandTotals(rows)).toEqual({ billable: 12, local: 290 });
  });
});

describe('sinceProblem', () => {
  it.each(['2026-11', '2026-11-30', '2024-02-29', '1999-01-01'])('accepts %s', (text) => {
    expect(sinceProblem(text)).toBeUndefined();
  });
  it.each(['2026-00', '2026-13', '2026-02-30', '2025-02-29', '2026-1', '26-11', '2026/11', ''])(
    'refuses %j',
    (text) => {
      expect(sinceProblem(text)).toMatch(/YYYY-MM/);
    },
  );
});
