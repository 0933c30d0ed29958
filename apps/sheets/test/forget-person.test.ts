// Issue 38, Sheets: Extensions > Enrich > Forget a person. A person with answers kept in the hidden
// sheet and the document cache (a formula's Phone Lookup of their phone, a sidebar run's Email
// Verify of their e-mail, a Phone Append of their name and address whose answer holds their phone)
// is forgotten as the sidebar asks it (core's identities of what was typed, any spelling): every
// store of the fake runtime (every sheet's values, formulas and notes, the hidden sheet's cells
// unpacked, every cache, every property store, logs, what went to the browser) holds the person in
// no spelling, the suppression list holds no clear text, and the other people's answers are still
// there. Afterwards a formula, a sidebar run and the automation for that person send nothing (counted
// at the runtime's UrlFetchApp), each row saying so in core's words.
import { gunzipSync } from 'node:zlib';
import { type Identity, IdentityMatcher, identitiesOf } from '@enrich/core/universal';
import { describe, expect, test } from 'vitest';
import { newRuntime, phone, referenceRecord } from './helpers.js';
import type { Runtime } from './runtime/index.js';

const PERSON = { FName: 'Jane', LName: 'Doe', Address1: '12 Main St', Zip: '02134' };
/** The phone and e-mail the sandbox appends for the person: theirs, in the answers' own spelling. */
const FORMATTED_PHONE = String(referenceRecord('/v3/append/phone', PERSON).Phone); // "(522) 092-4532"
const DIGITS = FORMATTED_PHONE.replace(/\D/g, '');
const EMAIL = String(referenceRecord('/v3/append/email', PERSON).email);
const TODAY = '2026-11-22';
const FORGOTTEN = `invalid: forgotten at the person's request on ${TODAY}; nothing was sent`;

/** The person as typed into the sidebar's box ("522.092.4532; Jane.Doe70@Example.NET"), read by core. */
function typedPerson(): Identity[] {
  const parts = [
    { Phone: `${DIGITS.slice(0, 3)}.${DIGITS.slice(3, 6)}.${DIGITS.slice(6)}` },
    { Email: mixedCase(EMAIL) },
  ];
  return parts.flatMap((fields) => {
    const read = identitiesOf(fields);
    if (!read.ok) throw new Error(read.message);
    return read.identities;
  });
}

const mixedCase = (text: string) =>
  text.replace(/(^|[.@])([a-z])/g, (_, p: string, c: string) => p + c.toUpperCase());
const escaped = (text: string) =>
  [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/** Every spelling of the person a store could hold: digits, formatted, in any case, JSON-escaped. */
function spellings(): string[] {
  const [a, b, c] = [DIGITS.slice(0, 3), DIGITS.slice(3, 6), DIGITS.slice(6)];
  const base = [
    DIGITS,
    `1${DIGITS}`,
    FORMATTED_PHONE,
    `(${a}) ${b}-${c}`,
    `${a}-${b}-${c}`,
    `${a}.${b}.${c}`,
    `+1 ${a} ${b} ${c}`,
    EMAIL,
    EMAIL.toUpperCase(),
    mixedCase(EMAIL),
  ];
  return [...base, ...base.map(escaped), ...base.map((s) => JSON.stringify(JSON.stringify(s)).slice(2, -2))];
}

const column = (n: number): string =>
  (n > 26 ? column(Math.floor((n - 1) / 26)) : '') + String.fromCharCode(65 + ((n - 1) % 26));

/**
 * Everything the fake runtime stores, as text, each with where it is: cells (values, formulas,
 * errors, notes; the hidden sheet's packed cells unpacked), caches, properties, logs, errors, and
 * what went to the browser. `skip`: the user's own input cells ("Sheet1!A2"), which the add-on
 * never changes.
 */
function everythingStored(rt: Runtime, skip: ReadonlySet<string>): [string, string][] {
  const found: [string, string][] = [];
  for (const sheet of rt.spreadsheet.sheets) {
    for (const [k, cell] of sheet.cells) {
      const where = `${sheet.name}!${column(k % 100_000)}${Math.floor(k / 100_000)}`;
      if (skip.has(where)) continue;
      for (const part of [cell.value, cell.formula, cell.error, cell.note]) {
        if (part === undefined || part === '') continue;
        let text = String(part);
        if (/^z[A-Za-z0-9+/=]+$/.test(text))
          text = gunzipSync(Buffer.from(text.slice(1), 'base64')).toString('utf8');
        found.push([where, text]);
      }
    }
  }
  const caches = [rt.documentCache, rt.scriptCache, rt.userCache(rt.owner), rt.userCache(rt.collaborator)];
  for (const cache of caches)
    for (const [k, e] of cache.entries) found.push([`cache ${cache.name} ${k}`, `${k}\n${e.value}`]);
  const stores = [
    rt.documentProperties,
    rt.scriptProperties,
    rt.userProperties(rt.owner),
    rt.userProperties(rt.collaborator),
  ];
  for (const store of stores)
    for (const [k, v] of store.values) found.push([`properties ${store.name} ${k}`, `${k}\n${v}`]);
  const lines = { log: rt.logs, error: rt.errors, 'to the browser': rt.browserTraffic };
  for (const [what, list] of Object.entries(lines))
    for (const [i, line] of list.entries()) found.push([`${what} ${i}`, line]);
  return found;
}

/** Where the person is still held: each store that holds one of their spellings, or where core's matcher finds them. */
function holdersOfThePerson(rt: Runtime, skip: ReadonlySet<string>): string[] {
  const matcher = new IdentityMatcher(typedPerson());
  const words = spellings().map((s) => s.toLowerCase());
  return everythingStored(rt, skip)
    .filter(
      ([, text]) => words.some((w) => text.toLowerCase().includes(w)) || matcher.find(text) !== undefined,
    )
    .map(([where]) => where);
}

interface Progress {
  runId: string;
  finished: boolean;
  counts: { spent: number; invalid: number };
}

function runAll(rt: Runtime, request: unknown): Progress {
  const plan = rt.scriptRun(rt.owner, 'planRun', request) as { transactions: number };
  let progress = rt.scriptRun(rt.owner, 'startRun', request, true, plan.transactions) as Progress;
  while (!progress.finished) progress = rt.scriptRun(rt.owner, 'runChunk', progress.runId) as Progress;
  return progress;
}

const run = (
  rt: Runtime,
  sheet: string,
  operation: string,
  mapping: Record<string, number>,
  width: number,
) => ({
  selection: { sheetId: rt.sheet(sheet).id, row: 1, column: 1, numRows: 4, numColumns: width },
  operation,
  mapping,
  columns: [],
  targetColumn: width + 1,
});

/** Requests sent for the person since `from` (their identities in the URL or body). */
function sentFor(rt: Runtime, from: number): number {
  const matcher = new IdentityMatcher(typedPerson());
  return rt.http.slice(from).filter((r) => matcher.find(`${r.url}\n${r.body}`) !== undefined).length;
}

/** Answers kept in the hidden sheet `_enrich_answers` (its cells unpacked). */
function keptInSheet(rt: Runtime): number {
  let count = 0;
  for (const cell of rt.sheet('_enrich_answers').cells.values()) {
    const text = String(cell.value);
    if (text.startsWith('z'))
      count += Object.keys(
        JSON.parse(gunzipSync(Buffer.from(text.slice(1), 'base64')).toString('utf8')),
      ).length;
  }
  return count;
}

/** Answers in the document cache's buckets. */
function keptInCache(rt: Runtime): number {
  let count = 0;
  for (const [k, e] of rt.documentCache.entries)
    if (/^answers:\d+$/.test(k)) count += Object.keys(JSON.parse(e.value)).length;
  return count;
}

/**
 * The person and two others, each bought three ways: Phone Lookup formulas (Sheet1), an Email
 * Verify run (Emails) and a Phone Append run (Append, whose answer for the person holds their phone
 * as "(522) 092-4532"). Every answer is kept in the hidden sheet and the document cache.
 */
function boughtEverywhere() {
  const rt = newRuntime();
  rt.type('Sheet1', 'A1:B1', [['Phone', 'Who']]);
  rt.type('Sheet1', 'A2:A4', [[FORMATTED_PHONE], [phone(1)], [phone(2)]]);
  for (const row of [2, 3, 4]) rt.type('Sheet1', `B${row}`, [[`=PHONELOOKUP(A${row}, "FName,LName,City")`]]);
  expect(rt.recalculate().errors).toEqual([]);
  rt.spreadsheet.addSheet('Emails');
  rt.type('Emails', 'A1:A4', [['Email'], [EMAIL.toUpperCase()], ['b1@example.com'], ['b2@example.com']]);
  expect(runAll(rt, run(rt, 'Emails', 'email-verify', { Email: 0 }, 1)).counts.spent).toBe(3);
  rt.spreadsheet.addSheet('Append');
  rt.type('Append', 'A1:D4', [
    ['First name', 'Last name', 'Street', 'ZIP'],
    [PERSON.FName, PERSON.LName, PERSON.Address1, PERSON.Zip],
    ['Ann', 'Lee', '1 Elm St', '10001'],
    ['Bo', 'Kim', '2 Oak Ave', '60601'],
  ]);
  const append = run(rt, 'Append', 'phone-append', { FName: 0, LName: 1, Address1: 2, Zip: 3 }, 4);
  expect(runAll(rt, append).counts.spent).toBe(3);
  expect(rt.sandbox.transactions()).toBe(9);
  expect(rt.values('Append', 'F2')[0]?.[0]).toBe(FORMATTED_PHONE);
  // Every answer is kept: in the hidden sheet (the runs kept them at their end), and in the cache.
  expect(keptInSheet(rt)).toBe(9);
  expect(keptInCache(rt)).toBe(9);
  const inputs = new Set(['Sheet1!A2', 'Emails!A2']);
  const typed = { 'Sheet1!A2': FORMATTED_PHONE, 'Emails!A2': EMAIL.toUpperCase() };
  return { rt, inputs, typed };
}

interface Report {
  on: string;
  added: number;
  fromCache: number;
  fromSheet: number;
  undoCopies: number;
  cells: string[];
  formulas: string[];
  unsure: string[];
}

describe('Forget a person', () => {
  test('removes every kept answer holding them; cleared cells; a byte scan of every store finds them in no spelling', () => {
    const { rt, inputs, typed } = boughtEverywhere();
    // Before: the person is in the stores (the scan finds what it looks for).
    expect(holdersOfThePerson(rt, inputs)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^cache document answers:\d+$/),
        expect.stringMatching(/^_enrich_answers!/),
        'Append!F2',
      ]),
    );

    const report = rt.scriptRun(rt.owner, 'forgetPerson', typedPerson()) as Report;
    expect(report).toMatchObject({
      on: TODAY,
      added: 2,
      fromCache: 3,
      fromSheet: 3,
      undoCopies: 1,
      unsure: [],
    });
    // Offered, not done: the cells that still show what was bought about them.
    expect(report.cells).toEqual(['Emails!B2:C2', 'Append!E2:I2']); // Status and Result; Status and 4 columns
    expect(report.formulas).toEqual(['Sheet1!B2']);
    expect(rt.values('Append', 'F2')[0]?.[0]).toBe(FORMATTED_PHONE);
    expect(holdersOfThePerson(rt, inputs)).toEqual(['Append!F2']);

    const formulaWrites = rt.cell('Sheet1', 'B2')?.writes ?? 0;
    const cleared = rt.scriptRun(rt.owner, 'clearForgottenCells', typedPerson()) as Report;
    // The formula is entered again (cleared, then written back), so that Sheets recalculates it.
    expect(rt.cell('Sheet1', 'B2')?.writes).toBeGreaterThan(formulaWrites);
    expect(rt.cell('Sheet1', 'B2')?.formula).toBe('=PHONELOOKUP(A2, "FName,LName,City")');
    expect(rt.cell('Sheet1', 'B3')?.writes).toBe(0);
    expect(cleared.cells).toEqual(report.cells);
    expect(rt.values('Append', 'E2:I2')).toEqual([['', '', '', '', '']]);
    expect(rt.cell('Append', 'E2')?.note).toBeUndefined();
    expect(rt.values('Emails', 'B2:C2')).toEqual([['', '']]);
    expect(rt.values('Emails', 'B3')[0]?.[0]).toBe('ok'); // the others' rows are not touched
    // The formula, entered again, says so once Sheets recalculates it, and buys nothing.
    const sent = rt.http.length;
    expect(rt.recalculate().errors).toEqual([]);
    expect(rt.values('Sheet1', 'B2')[0]?.[0]).toBe(FORGOTTEN);
    expect(rt.http.length).toBe(sent);

    // Nowhere, in no spelling; the user's own inputs are as they typed them.
    expect(holdersOfThePerson(rt, inputs)).toEqual([]);
    for (const [where, value] of Object.entries(typed)) {
      const [sheet, a1] = where.split('!') as [string, string];
      expect(rt.values(sheet, a1)[0]?.[0]).toBe(value);
    }
    // The list: one property per identity, a salted hash, its kind and the day; no clear text.
    const listed = [...rt.documentProperties.values].filter(([k]) => k.startsWith('enrich.forgotten.'));
    expect(listed.map(([k, v]) => [k.replace(/[0-9a-f]{64}$/, 'HASH'), v]).sort()).toEqual([
      ['enrich.forgotten.HASH', `email ${TODAY}`],
      ['enrich.forgotten.HASH', `phone ${TODAY}`],
      ['enrich.forgotten.salt', expect.stringMatching(/^[0-9a-f]{64}$/)],
    ]);

    // The others' answers are still kept, and their formulas recalculate for nothing.
    expect(keptInSheet(rt)).toBe(6);
    expect(keptInCache(rt)).toBe(6);
    expect(rt.values('Sheet1', 'B3')[0]?.[0]).not.toBe('');
    expect(rt.sandbox.transactions()).toBe(9);
    console.log(
      `Forget a person: ${report.fromSheet} answers removed from the hidden sheet, ${report.fromCache} from the document cache, ` +
        `${report.undoCopies} undo copy deleted, ${report.added} identities listed; offered ${report.cells.join(', ')} and the formula ${report.formulas.join(', ')}; ` +
        `after: 0 stores hold the person in ${spellings().length} spellings; 6 other answers kept`,
    );
  });

  test('afterwards a formula, a sidebar run and the automation send nothing for them, and say why', () => {
    const { rt } = boughtEverywhere();
    rt.scriptRun(rt.owner, 'forgetPerson', typedPerson());
    // Whatever the cache and the hidden sheet hold or not: the list is checked first.
    rt.documentCache.evictEarly(1, Math.random);
    let from = rt.http.length;

    // A formula (a new one, in another spelling).
    rt.type('Sheet1', 'A6', [[`1 (${DIGITS.slice(0, 3)}) ${DIGITS.slice(3, 6)}-${DIGITS.slice(6)}`]]);
    rt.type('Sheet1', 'B6', [['=PHONELOOKUP(A6)']]);
    expect(rt.recalculate().errors).toEqual([]);
    expect(rt.values('Sheet1', 'B6')[0]?.[0]).toBe(FORGOTTEN);
    expect(rt.values('Sheet1', 'B2')[0]?.[0]).toBe(FORGOTTEN);
    expect(sentFor(rt, from)).toBe(0);

    // A sidebar run: Check counts the rows as invalid (nothing to pay), the run writes why.
    const emails = run(rt, 'Emails', 'email-verify', { Email: 0 }, 1);
    const plan = rt.scriptRun(rt.owner, 'planRun', emails) as {
      invalid: number;
      cached: number;
      transactions: number;
    };
    // The others' answers come from the hidden sheet (the cache lost them): nothing to buy.
    expect(plan).toMatchObject({ invalid: 1, cached: 2, transactions: 0 });
    from = rt.http.length;
    expect(runAll(rt, emails).counts.spent).toBe(0);
    expect(rt.http.length).toBe(from);
    expect(rt.values('Emails', 'B2')[0]?.[0]).toBe(FORGOTTEN);

    // The automation: a new row with their e-mail, enriched an hour later by the trigger.
    rt.scriptRun(rt.owner, 'turnOnAutomation', run(rt, 'Emails', 'email-verify', { Email: 0 }, 1));
    rt.type('Emails', 'A5', [[EMAIL]]);
    from = rt.http.length;
    rt.passTime(3_600_000);
    expect(rt.values('Emails', 'B5')[0]?.[0]).toBe(FORGOTTEN);
    expect(sentFor(rt, from)).toBe(0);
    expect(rt.http.length).toBe(from);
  });
});
