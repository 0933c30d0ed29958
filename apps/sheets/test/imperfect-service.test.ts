// Issue 8 in Sheets: a service that does not answer as the API description says. A 200 is a
// purchase: an answer that cannot be read is kept as "paid, unreadable" (cache and store), shown
// plainly, never bought again on its own; the sidebar offers to ask again and says what it costs.
// Fields the description does not have reach a formula's `fields` argument, and the status says
// how many fields were not as documented. The sandbox's misbehave modes play the service.
import { expect, test } from 'vitest';
import { newRuntime, OWNER_KEY, phone } from './helpers.js';
import type { Runtime } from './runtime/index.js';

const STORE = '_enrich_answers';

/** A custom function called as Sheets calls it, by the owner: rows of cells. */
function formula(rt: Runtime, name: string, ...args: unknown[]): unknown[][] {
  return rt.customFunction(rt.owner, name, ...args) as unknown[][];
}

/** The sidebar run over A1:A<n+1> (header "Phone") into column C, to the end. */
function runSidebar(rt: Runtime, rows: number, extra: Record<string, unknown> = {}, overwrite = false) {
  const request = {
    selection: { sheetId: rt.sheet().id, row: 1, column: 1, numRows: rows + 1, numColumns: 1 },
    operation: 'phone-lookup',
    mapping: { Phone: 0 },
    columns: ['FName'],
    targetColumn: 3,
    ...extra,
  };
  const plan = rt.scriptRun(rt.owner, 'planRun', request) as Record<string, number>;
  let progress = rt.scriptRun(rt.owner, 'startRun', request, overwrite) as {
    runId: string;
    finished: boolean;
    counts: Record<string, number>;
  };
  while (!progress.finished) progress = rt.scriptRun(rt.owner, 'runChunk', progress.runId) as typeof progress;
  return { plan, progress };
}

test('an HTML 200 is paid, unreadable: shown plainly, kept, never bought again on its own', () => {
  const rt = newRuntime();
  rt.sandbox.configure({ misbehave: ['html-200'] });
  const p = phone(1);
  expect(formula(rt, 'PHONELOOKUP', Number(p), 'FName,LName')).toEqual([
    ['paid, unreadable: the body is not JSON', ''],
  ]);
  expect(rt.sandbox.transactions()).toBe(1);
  expect(rt.http).toHaveLength(1);
  // Recalculations, the cache dropping it, a day later: read from the cache, then the store.
  formula(rt, 'PHONELOOKUP', Number(p));
  rt.run(rt.owner, 'keepAnswers');
  expect(rt.sheet(STORE).cells.size).toBeGreaterThan(0);
  rt.documentCache.evictEarly(1, Math.random);
  rt.clock.advance(24 * 3600_000);
  expect(formula(rt, 'PHONELOOKUP', Number(p), 'FName')).toEqual([
    ['paid, unreadable: the body is not JSON'],
  ]);
  expect(rt.http).toHaveLength(1);
  expect(rt.sandbox.transactions()).toBe(1);

  // The sidebar over the same input: no request, unless the user asks again (the plan says the cost).
  rt.sandbox.configure({ misbehave: [] });
  rt.type('Sheet1', 'A1:A3', [['Phone'], [p], [phone(2)]]);
  const first = runSidebar(rt, 2);
  expect(first.plan).toMatchObject({ distinct: 2, cached: 1, unreadable: 1, transactions: 1 });
  expect(rt.values('Sheet1', 'C2:D3')).toEqual([
    ['paid, unreadable: the body is not JSON', ''],
    ['ok', expect.any(String)],
  ]);
  expect(first.progress.counts).toMatchObject({ unreadable: 1, errors: 0, spent: 1 });
  expect(rt.http).toHaveLength(2);

  const again = runSidebar(rt, 2, { askAgainUnreadable: true }, true);
  expect(again.plan).toMatchObject({ unreadable: 1, transactions: 1 });
  expect(again.progress.counts).toMatchObject({ spent: 1, unreadable: 0 });
  expect(rt.http).toHaveLength(3);
  expect(String(rt.values('Sheet1', 'C2')[0]?.[0])).toBe('ok');
  // The new answer replaced the unreadable one: the formula shows it, for nothing.
  expect(String(formula(rt, 'PHONELOOKUP', Number(p), 'FName')[0]?.[0])).not.toMatch(/unreadable/);
  expect(rt.http).toHaveLength(3);
});

test('cut and huge bodies are paid, unreadable; what arrived is kept within the cache and store limits', () => {
  const rt = newRuntime();
  rt.sandbox.configure({ misbehave: ['cut-body'] });
  expect(formula(rt, 'PHONELOOKUP', Number(phone(3)))[0]?.[0]).toBe('paid, unreadable: the body is not JSON');
  rt.sandbox.configure({ misbehave: ['huge-body'] });
  expect(formula(rt, 'PHONELOOKUP', Number(phone(4)))[0]?.[0]).toBe(
    'paid, unreadable: the body is larger than the size limit',
  );
  expect(rt.sandbox.transactions()).toBe(2);
  expect(rt.http).toHaveLength(2);
  for (const entry of rt.documentCache.entries.values()) {
    expect(Buffer.byteLength(entry.value)).toBeLessThan(100 * 1024);
  }
  const cached = [...rt.documentCache.entries.values()].map((e) => e.value).join('');
  // The first characters of the 2 MB body are kept (8,000 of them), not the whole of it.
  expect(cached).toContain('Padding');
  expect(cached.length).toBeLessThan(40_000);
  rt.run(rt.owner, 'keepAnswers');
  for (const cell of rt.sheet(STORE).cells.values())
    expect(String(cell.value).length).toBeLessThanOrEqual(45_000);
  rt.documentCache.evictEarly(1, Math.random);
  expect(formula(rt, 'PHONELOOKUP', [[Number(phone(3))], [Number(phone(4))]])).toHaveLength(2);
  expect(rt.http).toHaveLength(2);
});

test('fields the description does not have reach a formula, and the status counts the differences', () => {
  const rt = newRuntime();
  rt.sandbox.configure({ misbehave: ['extra-fields', 'other-case'] });
  const out = formula(rt, 'PHONELOOKUP', Number(phone(5)), 'FName,DID,telcoName,Meta.Source', true);
  expect(out[0]).toEqual(['FName', 'DID', 'telcoName', 'Meta.Source']);
  expect(out[1]?.[0]).not.toBe('');
  expect(out[1]?.slice(1)).toEqual(['5550102030', 'Sandbox Wireless', 'sandbox']);
  // A name that no answer carries is a typo: the call fails and lists the documented columns.
  expect(() => formula(rt, 'PHONELOOKUP', Number(phone(5)), 'FName,DIDD')).toThrow(
    /Phone Lookup has no column "DIDD", and no answer carries an extra field of that name; its columns are FName/,
  );
  expect(rt.http).toHaveLength(1);

  rt.type('Sheet1', 'A1:A2', [['Phone'], [phone(6)]]);
  runSidebar(rt, 1);
  expect(String(rt.values('Sheet1', 'C2')[0]?.[0])).toMatch(/^ok \(\d+ fields not as documented\)$/);
  expect(String(rt.values('Sheet1', 'D2')[0]?.[0])).not.toBe('');
});

test('a key with a line break is refused before any request, and the message does not quote it', () => {
  const rt = newRuntime({ ownerKey: false });
  const key = `${OWNER_KEY}\nsecond-line`;
  let message = '';
  try {
    rt.scriptRun(rt.owner, 'saveSettings', { apiKey: key });
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toMatch(/line break.*not saved/);
  expect(message).not.toContain('second-line');
  // A key stored before this check existed: formulas and the sidebar refuse it, sending nothing.
  rt.userProperties(rt.owner).values.set('enrich.apiKey', 'abc def ghi jkl');
  expect(() => formula(rt, 'PHONELOOKUP', Number(phone(7)))).toThrow(/has a space in it/);
  rt.type('Sheet1', 'A1:A2', [['Phone'], [phone(7)]]);
  expect(() => runSidebar(rt, 1)).toThrow(/has a space in it/);
  expect(() => rt.scriptRun(rt.owner, 'checkKey')).toThrow(/has a space in it/);
  expect(rt.http).toHaveLength(0);
});

test('the free key check: a verdict per base, nothing spent, redirects not followed', () => {
  const rt = newRuntime();
  const accepted = rt.scriptRun(rt.owner, 'checkKey') as { base: string; verdict: string }[];
  expect(accepted.map((r) => [r.base, r.verdict])).toEqual([
    ['https://api.tdg1.io', 'accepted'],
    ['https://testapi.tdg1.io', 'accepted'],
  ]);
  expect(rt.http).toHaveLength(2);
  for (const sent of rt.http) {
    expect(sent.body).toBe('{}');
    expect(sent.followRedirects).toBe(false);
  }
  rt.scriptRun(rt.owner, 'saveSettings', { apiKey: 'not-a-key-the-service-knows' });
  const refused = rt.scriptRun(rt.owner, 'checkKey') as { verdict: string; detail: string }[];
  expect(refused.map((r) => r.verdict)).toEqual(['refused', 'refused']);
  rt.sandbox.configure({ misbehave: ['redirect'] });
  const moved = rt.scriptRun(rt.owner, 'checkKey') as { verdict: string; detail: string }[];
  expect(moved.map((r) => r.verdict)).toEqual(['unexpected', 'unexpected']);
  expect(moved[0]?.detail).toMatch(/307/);
  expect(rt.sandbox.transactions()).toBe(0);
  expect(rt.http).toHaveLength(6);
  for (const r of [...refused, ...moved]) expect(r.detail).not.toContain('not-a-key-the-service-knows');
});
