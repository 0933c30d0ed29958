// Must show 1: the nine custom functions, called on the built bundle as Sheets calls them (single
// values, numbers for phones and ZIPs, 2D column ranges), send exactly the requests the API
// describes (checked against the API description's literal paths, headers and body field names,
// not against core) and return the documented columns; `fields` and `header` work; empty, invalid
// and no-match rows; whole-call failures with messages that say what to do; whose key is used.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findOperation } from '@enrich/core/universal';
import { describe, expect, test } from 'vitest';
import { CASES } from './function-cases.js';
import { COLLABORATOR_KEY, newRuntime, OWNER_KEY, referenceRecord } from './helpers.js';
import { AppsScriptError, DIST } from './runtime/index.js';

describe('each function sends the request the API describes and returns its columns', () => {
  test.each(CASES.map((c) => [`${c.fn}(${c.args.map((a) => JSON.stringify(a)).join(', ')})`, c] as const))(
    '%s',
    (_, c) => {
      const rt = newRuntime();
      const fields = Object.keys(c.columns).join(',');
      const args = [
        ...c.args,
        ...Array.from({ length: (c.inputs ?? c.args.length) - c.args.length }, () => ''),
      ];
      const out = rt.customFunction(rt.collaborator, c.fn, ...args, fields, true) as unknown[][];

      expect(rt.http).toHaveLength(1);
      const sent = rt.http[0] as (typeof rt.http)[number];
      expect(sent.method).toBe('POST');
      expect(sent.url).toBe(c.url);
      expect(sent.headers['x-api-key']).toBe(OWNER_KEY);
      expect(sent.headers['Content-Type']).toBe('application/json');
      const body = JSON.parse(sent.body);
      expect(Object.keys(body).sort()).toEqual(Object.keys(c.body).sort());
      expect(body).toEqual(c.body);

      const record = referenceRecord(new URL(c.url).pathname, c.body);
      expect(out).toEqual([Object.keys(c.columns), Object.values(c.columns).map((at) => at(record))]);

      // The documented default columns when `fields` is left out; no header row unless asked.
      const defaults = rt.customFunction(rt.collaborator, c.fn, ...c.args) as unknown[][];
      const op = findOperation(c.op);
      expect(defaults).toHaveLength(1);
      expect((defaults[0] as unknown[]).length).toBe(op?.defaultColumns.length);
      // Same input again: answered from the document cache, nothing sent.
      expect(rt.http).toHaveLength(1);
    },
  );
});

test('the argument lists are those of the issue, in that order', () => {
  // Read from the built script, as Sheets reads it.
  const code = readFileSync(join(DIST, 'Code.js'), 'utf8');
  const declared = (name: string) =>
    new RegExp(`\\nfunction ${name}\\(([^)]*)\\)`).exec(code)?.[1]?.split(', ');
  expect(declared('PHONELOOKUP')).toEqual(['phone', 'fields', 'header']);
  expect(declared('EMAILLOOKUP')).toEqual(['email', 'fields', 'header']);
  expect(declared('EMAILVERIFY')).toEqual(['email', 'fields', 'header']);
  expect(declared('TCPAVERIFY')).toEqual(['phone', 'last_name', 'fields', 'header']);
  expect(declared('IDVERIFY')).toEqual([
    'first_name',
    'last_name',
    'address1',
    'zip',
    'phone',
    'email',
    'fields',
    'header',
  ]);
  expect(declared('EMAILAPPEND')).toEqual(['first_name', 'last_name', 'address1', 'zip', 'fields', 'header']);
  expect(declared('PHONEAPPEND')).toEqual(['first_name', 'last_name', 'address1', 'zip', 'fields', 'header']);
  expect(declared('AUTOAPPEND')).toEqual(['phone_email_or_full_name', 'address1', 'zip', 'fields', 'header']);
  expect(declared('DEMOGRAPHICAPPEND')).toEqual([
    'first_name',
    'last_name',
    'address1',
    'zip',
    'phone_or_email',
    'fields',
    'header',
  ]);
});

describe('column ranges, as a formula over cells', () => {
  test('one row per input row; numbers for phones and ZIPs; a single value used for every row', () => {
    const rt = newRuntime();
    rt.type('Sheet1', 'A1:F4', [
      ['First', 'Last', 'Street', 'Zip', 'Phone', 'Email'],
      ['Jane', 'Doe', '12 Main St', 2134, 5550102030, 'jane.doe@example.com'],
      ['John', 'Roe', '9 Elm Ave', '00501', '(555) 010-2031', ''],
      ['Ann', 'Poe', '', '', '', 'ann.poe@example.com'],
    ]);
    rt.type('Sheet1', 'H1', [
      ['=IDVERIFY(A2:A4, B2:B4, C2:C4, D2:D4, E2:E4, F2:F4, "IDVerifyScore,ValidName")'],
    ]);
    rt.type('Sheet1', 'K1', [['=TCPAVERIFY(E2:E3, "Doe")']]);
    expect(rt.recalculate().errors).toEqual([]);

    const bodies = rt.http.map((h) => [new URL(h.url).pathname, JSON.parse(h.body)]);
    expect(bodies).toEqual([
      [
        '/v2/verify/id',
        {
          FName: 'Jane',
          LName: 'Doe',
          Address1: '12 Main St',
          Zip: '02134',
          Phone: '5550102030',
          Email: 'jane.doe@example.com',
        },
      ],
      [
        '/v2/verify/id',
        { FName: 'John', LName: 'Roe', Address1: '9 Elm Ave', Zip: '00501', Phone: '5550102031' },
      ],
      ['/v2/verify/id', { FName: 'Ann', LName: 'Poe', Email: 'ann.poe@example.com' }],
      ['/v2/verify/tcpa', { phone: '5550102030', last_name: 'Doe' }],
      ['/v2/verify/tcpa', { phone: '5550102031', last_name: 'Doe' }],
    ]);
    const first = referenceRecord('/v2/verify/id', bodies[0]?.[1]);
    expect(rt.values('Sheet1', 'H1:I3')).toEqual([
      [first.IDScores.IDVerifyScore, first.IDScores.ValidName],
      [
        referenceRecord('/v2/verify/id', bodies[1]?.[1]).IDScores.IDVerifyScore,
        referenceRecord('/v2/verify/id', bodies[1]?.[1]).IDScores.ValidName,
      ],
      [
        referenceRecord('/v2/verify/id', bodies[2]?.[1]).IDScores.IDVerifyScore,
        referenceRecord('/v2/verify/id', bodies[2]?.[1]).IDScores.ValidName,
      ],
    ]);
    const tcpa = referenceRecord('/v2/verify/tcpa', { phone: '5550102031', last_name: 'Doe' });
    expect(rt.values('Sheet1', 'K2:L2')).toEqual([[tcpa.verification_code, tcpa.phone_type]]);
  });

  test('empty rows stay empty, invalid rows say which field broke which rule, 204 is "no match"; none of them is sent', () => {
    const rt = newRuntime();
    rt.type('Sheet1', 'A1:A6', [['Phone'], [5550102030], [''], ['555-0102'], [5550000204], ['call me']]);
    rt.type('Sheet1', 'B1', [['=PHONELOOKUP(A2:A6, "FName,City", TRUE)']]);
    expect(rt.recalculate().errors).toEqual([]);
    const record = referenceRecord('/v3/lookup/phone', { Phone: '5550102030' });
    expect(rt.values('Sheet1', 'B1:C6')).toEqual([
      ['FName', 'City'],
      [record.Name.FName, record.Address.City],
      ['', ''],
      ['invalid: Phone must be 10 digits; got 7', ''],
      ['no match', ''],
      ['invalid: Phone must be numeric only (10 digits); got "call me"', ''],
    ]);
    expect(rt.http.map((h) => JSON.parse(h.body).Phone)).toEqual(['5550102030', '5550000204']);
    // 204 is paid (docs/api.md, "What costs money"), so it is cached like any answer: recalculating sends nothing.
    rt.recalculate();
    expect(rt.http).toHaveLength(2);
  });

  test('a 440 is a no match with its reason (as the CLI writes it), a 500 that outlasts the retries a row error; the other rows are answered', () => {
    const rt = newRuntime();
    const out = rt.customFunction(
      rt.owner,
      'PHONELOOKUP',
      [[5550000440], [5550000500], [5550102030]],
      'FName',
    ) as string[][];
    expect(out[0]?.[0]).toMatch(/^no match: Too many records match \(440\)/);
    expect(out[1]?.[0]).toMatch(/^error: The service had an error \(500\)/);
    expect(out[2]?.[0]).toBe(referenceRecord('/v3/lookup/phone', { Phone: '5550102030' }).Name.FName);
    // 500 is retried per core's policy (5 attempts); 440 is not retried.
    const sent = (p: string) => rt.http.filter((h) => JSON.parse(h.body).Phone === p).length;
    expect(sent('5550000500')).toBe(5);
    expect(sent('5550000440')).toBe(1);
  });

  test('fields and ranges are checked, with messages naming what is wrong', () => {
    const rt = newRuntime();
    expect(() => rt.customFunction(rt.owner, 'PHONELOOKUP', 5550102030, 'FName,Nope')).toThrow(
      /Phone Lookup has no column "Nope"/,
    );
    expect(() => rt.customFunction(rt.owner, 'PHONELOOKUP', [[1, 2]])).toThrow(
      /phone takes one cell or one column/,
    );
    // A date cell is not a phone.
    expect(rt.customFunction(rt.owner, 'PHONELOOKUP', new Date(Date.UTC(2026, 0, 2)), 'FName')).toEqual([
      ['invalid: Phone must be text; got a date'],
    ]);
    // A one-cell range is used for every row, like a plain value.
    expect(
      rt.customFunction(rt.owner, 'TCPAVERIFY', [[5550102030], [5550102031]], [['Doe']], 'phone_type'),
    ).toHaveLength(2);
    expect(() =>
      rt.customFunction(rt.owner, 'TCPAVERIFY', [[5550102030], [5550102031]], [['Doe'], ['Roe'], ['Poe']]),
    ).toThrow(/different number of rows/);
  });
});

describe('whose key: formulas use the owner key, the sidebar the key of whoever runs it', () => {
  test('a collaborator who saved a key still sees the owner message while the owner has none', () => {
    const rt = newRuntime({ ownerKey: false });
    rt.run(rt.collaborator, 'saveSettings', { apiKey: COLLABORATOR_KEY });
    const call = () => rt.customFunction(rt.collaborator, 'PHONELOOKUP', 5550102030);
    expect(call).toThrow(AppsScriptError);
    expect(call).toThrow(
      "Formulas in this spreadsheet use its owner's API key; the owner has not set one. The sidebar uses your own key.",
    );
    expect(call).toThrow(/Extensions > Enrich > Set API key/);
    expect(rt.http).toHaveLength(0);

    rt.run(rt.owner, 'saveSettings', { apiKey: OWNER_KEY });
    rt.customFunction(rt.collaborator, 'PHONELOOKUP', 5550102030);
    expect(rt.http.map((h) => h.headers['x-api-key'])).toEqual([OWNER_KEY]);
    expect(rt.sandbox.transactions(OWNER_KEY)).toBe(1);
    expect(rt.sandbox.transactions(COLLABORATOR_KEY)).toBe(0);
  });

  test('an empty or all-invalid range needs no key and sends nothing', () => {
    const rt = newRuntime({ ownerKey: false });
    expect(rt.customFunction(rt.owner, 'PHONELOOKUP', [[''], ['12']], 'FName,City')).toEqual([
      ['', ''],
      ['invalid: Phone must be 10 digits; got 2', ''],
    ]);
  });

  test('a refused key and a used-up allowance fail the whole call with what to do', () => {
    const rt = newRuntime({ ownerKey: false });
    rt.run(rt.owner, 'saveSettings', { apiKey: 'not-a-key-the-service-knows' });
    expect(() => rt.customFunction(rt.owner, 'PHONELOOKUP', 5550102030)).toThrow(
      /The API key was refused \(401\)\. Formulas in this spreadsheet use its owner's API key/,
    );

    const limited = newRuntime({ sandbox: { allowance: 1, retryAfterSeconds: 2 } });
    limited.customFunction(limited.owner, 'PHONELOOKUP', 5550102030);
    const before = limited.clock.now();
    expect(() => limited.customFunction(limited.owner, 'PHONELOOKUP', 5550102031)).toThrow(
      /allowance of the spreadsheet owner's API key is used up \(429\)/,
    );
    // Retried per core's policy, waiting what Retry-After says each time.
    const tries = limited.http.filter((h) => h.status === 429);
    expect(tries).toHaveLength(5);
    expect((tries[1]?.at ?? 0) - (tries[0]?.at ?? 0)).toBeGreaterThanOrEqual(2000);
    expect(limited.clock.now() - before).toBeLessThan(30_000);
  });
});
