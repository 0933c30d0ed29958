// Must show 3: a sidebar run of 5,000 rows, interrupted at random chunk boundaries (sidebar closed,
// a chunk that fails) and resumed, writes every row exactly once, spends exactly the number of
// distinct valid requests, never touches the input columns, and never writes over non-empty cells
// without confirmation. Also: 429 slows the run (honouring Retry-After), 5xx retried per core's
// policy, a row that still fails says why and the run goes on; whose key the sidebar uses.
import { describe, expect, test } from 'vitest';
import { COLLABORATOR_KEY, newRuntime, OWNER_KEY, phone, referenceRecord } from './helpers.js';
import {
  COLUMNS,
  leads,
  type Plan,
  type Progress,
  request,
  type State,
  seeded,
  setUp,
  writes,
} from './sidebar-run-helpers.js';

describe('a 5,000-row run, interrupted and resumed', () => {
  test('every row written once, exactly the distinct valid requests spent, inputs untouched', () => {
    const random = seeded(20261122);
    const rt = newRuntime({ latencyMs: 150 });
    rt.run(rt.collaborator, 'saveSettings', { apiKey: COLLABORATOR_KEY });
    const { rows, kinds, keys } = leads(5000, random);
    setUp(rt, rows);
    const inputsBefore = rt.values('Sheet1', 'A1:B5001');
    const distinct = new Set(keys.filter(Boolean)).size;
    const user = rt.collaborator;

    const req = request(rt, user);
    const plan = rt.scriptRun(user, 'planRun', req) as Plan;
    expect(plan).toMatchObject({
      rows: 5000,
      empty: kinds.filter((k) => k === 'empty').length,
      invalid: kinds.filter((k) => k === 'invalid').length,
      distinct,
      transactions: distinct,
      nonEmpty: 0,
      targetA1: 'C1:G5001',
    });
    expect(rt.sandbox.transactions()).toBe(0); // planning spends nothing

    // Interrupt four of the first six calls, at random, two ways: the sidebar closed (the browser
    // stops calling) and a chunk that fails on the server after fetching its answers. (Chunks grow
    // with the pace found, chunk-size.ts: 250 rows, then up to 2,000; the run takes four or more.)
    const stops = new Set<number>();
    while (stops.size < 4) stops.add(1 + Math.floor(random() * 6));
    const stopList = [...stops].sort((a, b) => a - b);
    let progress = rt.scriptRun(user, 'startRun', req, false) as Progress;
    let calls = 0;
    let failures = 0;
    let resumes = 0;
    const spentAt: number[] = [];
    while (!progress.finished) {
      calls++;
      if (stops.has(calls)) {
        stops.delete(calls);
        spentAt.push(rt.sandbox.transactions());
        if (resumes % 2 === 0) {
          // The chunk fetches and caches its answers, then cannot write.
          rt.faults.set(
            'setValues',
            'Service Spreadsheets timed out while accessing document with id 1SpreadsheetTestId.',
          );
          expect(() => rt.scriptRun(user, 'runChunk', progress.runId)).toThrow(
            /Service Spreadsheets timed out/,
          );
          failures++;
        }
        // The sidebar is closed; reopened later, it finds the run and resumes it.
        rt.run(user, 'showSidebar');
        const state = rt.scriptRun(user, 'getSidebarState') as State;
        expect(state.run?.runId).toBe(progress.runId);
        expect(state.run?.counts.done).toBe(progress.counts.done);
        resumes++;
        progress = state.run as Progress;
        continue;
      }
      progress = rt.scriptRun(user, 'runChunk', progress.runId) as Progress;
    }

    expect(resumes).toBe(4);
    expect(failures).toBe(2);
    expect(rt.sandbox.transactions()).toBe(distinct);
    expect(rt.sandbox.transactions(COLLABORATOR_KEY)).toBe(distinct); // the sidebar's user pays, not the owner
    expect(rt.sandbox.transactions(OWNER_KEY)).toBe(0);
    expect(progress.counts).toMatchObject({
      done: 5000,
      spent: distinct,
      invalid: kinds.filter((k) => k === 'invalid').length,
      empty: kinds.filter((k) => k === 'empty').length,
      errors: 0,
    });
    expect(spentAt.every((s, i) => i === 0 || s >= (spentAt[i - 1] as number))).toBe(true);
    // The user's spend record (issue 24) counted every transaction, failed chunks included, once.
    const spend = JSON.parse(rt.userProperties(user).values.get('enrich.spend.1SpreadsheetTestId') ?? '{}');
    expect(spend.rows).toEqual([
      expect.objectContaining({ operation: 'phone-lookup', transactions: distinct }),
    ]);

    // Exactly once: header and 5,000 rows, 5 columns (status + 4).
    const target = writes(rt, 5001, 3, 5);
    expect(new Set(target.counts)).toEqual(new Set([1]));
    const inputs = writes(rt, 5001, 1, 2);
    expect(new Set(inputs.touches)).toEqual(new Set([0]));
    expect(rt.values('Sheet1', 'A1:B5001')).toEqual(inputsBefore);
    // Nothing right of the target was touched either.
    expect(new Set(writes(rt, 5001, 8, 1).touches)).toEqual(new Set([0]));

    // And every row holds its own answer.
    const out = rt.values('Sheet1', 'C1:G5001');
    expect(out[0]).toEqual(['Status', ...COLUMNS]);
    kinds.forEach((kind, i) => {
      const row = out[i + 1] as unknown[];
      if (kind === 'empty') expect(row).toEqual(['', '', '', '', '']);
      else if (kind === 'invalid') expect(String(row[0])).toMatch(/^invalid: Phone must be/);
      else if (keys[i] === '5550000204') expect(row).toEqual(['no match', '', '', '', '']);
      else {
        const record = referenceRecord('/v3/lookup/phone', { Phone: keys[i] as string });
        expect(row).toEqual([
          'ok',
          record.Name.FName,
          record.Name.LName,
          record.Address.City,
          record.Address.Zip,
        ]);
      }
    });
    // ZIP codes stayed text with their leading zeros (target cells are plain text).
    expect(out.slice(1).some((row) => typeof row[4] === 'string' && /^0\d{4}$/.test(row[4] as string))).toBe(
      true,
    );

    // The checkpoint lived in the runner's user properties, never in the document's, and is gone.
    // (The document's properties hold only the allowance's count, issue 39: digests and numbers.)
    expect([...rt.documentProperties.values.keys()]).toEqual(['enrich.allowance.spent']);
    expect([...rt.userProperties(user).values.keys()].some((k) => k.startsWith('enrich.run.'))).toBe(false);
    console.log(
      `sidebar run: 5000 rows, ${distinct} distinct valid, ${calls} runChunk calls, interrupted before calls ${stopList.join(', ')}: ` +
        `${resumes} resumes (${failures} after failed chunks), ` +
        `${rt.sandbox.transactions()} transactions, every target cell written once, input cells touched 0 times`,
    );
  });
});

describe('non-empty target cells and input columns', () => {
  test('nothing is written over a non-empty cell until the user confirms', () => {
    const rt = newRuntime();
    const rows = Array.from({ length: 30 }, (_, i) => [`Lead ${i}`, phone(i)]);
    setUp(rt, rows);
    rt.type('Sheet1', 'E10', [['keep me']]);
    const req = request(rt, rt.owner);
    const plan = rt.scriptRun(rt.owner, 'planRun', req) as Plan;
    expect(plan.nonEmpty).toBe(1);
    expect(() => rt.scriptRun(rt.owner, 'startRun', req, false)).toThrow(
      /1 target cell is not empty in C1:G31; confirm to overwrite them/,
    );
    expect(rt.cell('Sheet1', 'E10')?.value).toBe('keep me');
    expect(new Set(writes(rt, 31, 3, 5).touches)).toEqual(new Set([0]));
    expect(rt.sandbox.transactions()).toBe(0);

    // Confirmed: the run goes ahead and replaces it.
    let progress = rt.scriptRun(rt.owner, 'startRun', req, true) as Progress;
    while (!progress.finished) progress = rt.scriptRun(rt.owner, 'runChunk', progress.runId) as Progress;
    expect(rt.cell('Sheet1', 'E10')?.value).not.toBe('keep me');
  });

  test('a cell typed into the target after the start is not overwritten: the chunk stops instead', () => {
    const rt = newRuntime();
    const rows = Array.from({ length: 600 }, (_, i) => [`Lead ${i}`, phone(i)]);
    setUp(rt, rows);
    const req = request(rt, rt.owner);
    let progress = rt.scriptRun(rt.owner, 'startRun', req, false) as Progress;
    progress = rt.scriptRun(rt.owner, 'runChunk', progress.runId) as Progress;
    expect(progress.counts.done).toBe(250);
    rt.type('Sheet1', 'D400', [['typed meanwhile']]);
    expect(() => rt.scriptRun(rt.owner, 'runChunk', progress.runId)).toThrow(/no longer empty/);
    expect(rt.cell('Sheet1', 'D400')?.value).toBe('typed meanwhile');
    expect(rt.cell('Sheet1', 'D300')?.writes ?? 0).toBe(0);
  });

  test('a target overlapping the input columns is refused', () => {
    const rt = newRuntime();
    setUp(rt, [['Lead', phone(1)]]);
    const req = request(rt, rt.owner, { targetColumn: 2 });
    expect(() => rt.scriptRun(rt.owner, 'planRun', req)).toThrow(/would overwrite the input columns/);
    expect(() => rt.scriptRun(rt.owner, 'startRun', req, true)).toThrow(/would overwrite the input columns/);
  });
});

describe('429, 5xx and rows that still fail', () => {
  test('429 slows the run: no request is sent again before its Retry-After, and every row is answered', () => {
    const rt = newRuntime({ sandbox: { allowance: 50, allowanceWindowMs: 10_000 }, latencyMs: 100 });
    const rows = Array.from({ length: 200 }, (_, i) => [`Lead ${i}`, phone(i)]);
    setUp(rt, rows);
    const req = request(rt, rt.owner);
    let progress = rt.scriptRun(rt.owner, 'startRun', req, false) as Progress;
    while (!progress.finished) progress = rt.scriptRun(rt.owner, 'runChunk', progress.runId) as Progress;
    expect(progress.counts).toMatchObject({ done: 200, spent: 200, errors: 0 });
    expect(rt.sandbox.transactions()).toBe(200);
    const limited = rt.http.filter((h) => h.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    // A request that got a 429 is not sent again before its Retry-After (seconds to the window's end).
    for (const hit of limited) {
      const retryAfterMs = Number(hit.responseHeaders['retry-after']) * 1000;
      expect(retryAfterMs).toBeGreaterThanOrEqual(1000);
      const again = rt.http.find((h) => h.at > hit.at && h.body === hit.body);
      if (again) expect(again.at - hit.at).toBeGreaterThanOrEqual(retryAfterMs);
    }
    // The service refused everything for most of each window: every request waited, rather than
    // each asking in turn (150 of the 200 had to wait for a later window).
    expect(limited.length).toBeLessThan(150);
    // Rounds got smaller after a 429.
    const sizes = [...new Set(rt.http.map((h) => h.at))].map(
      (at) => rt.http.filter((h) => h.at === at).length,
    );
    expect(Math.min(...sizes.slice(-3))).toBeLessThan(Math.max(...sizes));
  });

  test('500s are retried per the core policy; a row that still fails says why, and the run goes on', () => {
    const rt = newRuntime({ sandbox: { faultRate: 0.3 } });
    const rows = Array.from({ length: 120 }, (_, i) => [`Lead ${i}`, i === 7 ? '5550000500' : phone(i)]);
    setUp(rt, rows);
    const req = request(rt, rt.owner);
    let progress = rt.scriptRun(rt.owner, 'startRun', req, false) as Progress;
    while (!progress.finished) progress = rt.scriptRun(rt.owner, 'runChunk', progress.runId) as Progress;
    expect(rt.http.filter((h) => h.status === 500).length).toBeGreaterThan(10);
    expect(progress.counts).toMatchObject({ done: 120, errors: 1, spent: 119 });
    expect(rt.sandbox.transactions()).toBe(119);
    expect(rt.values('Sheet1', 'C9:C9')[0]?.[0]).toMatch(/^error: The service had an error \(500\)/);
    expect(rt.http.filter((h) => h.body.includes('5550000500'))).toHaveLength(5);
    expect(rt.values('Sheet1', 'C10:C121').every((r) => r[0] === 'ok')).toBe(true);
  });

  test('a refused key stops the run with what to do, and resuming after fixing it spends nothing twice', () => {
    const rt = newRuntime();
    rt.run(rt.collaborator, 'saveSettings', { apiKey: 'a-key-the-service-does-not-know' });
    const rows = Array.from({ length: 300 }, (_, i) => [`Lead ${i}`, phone(i % 200)]);
    setUp(rt, rows);
    const req = request(rt, rt.collaborator);
    const progress = rt.scriptRun(rt.collaborator, 'startRun', req, false) as Progress;
    expect(() => rt.scriptRun(rt.collaborator, 'runChunk', progress.runId)).toThrow(
      /Your API key was refused \(401\)\. The sidebar uses your own key/,
    );
    rt.scriptRun(rt.collaborator, 'saveSettings', { apiKey: COLLABORATOR_KEY });
    let next = (rt.scriptRun(rt.collaborator, 'getSidebarState') as State).run as Progress;
    while (!next.finished) next = rt.scriptRun(rt.collaborator, 'runChunk', next.runId) as Progress;
    expect(rt.sandbox.transactions(COLLABORATOR_KEY)).toBe(200);
    expect(next.counts.done).toBe(300);
  });

  test('answers already cached (by formulas or an earlier run) are not paid for again', () => {
    const rt = newRuntime();
    const rows = Array.from({ length: 100 }, (_, i) => [`Lead ${i}`, phone(i)]);
    setUp(rt, rows);
    rt.customFunction(
      rt.owner,
      'PHONELOOKUP',
      rows.slice(0, 40).map((r) => [r[1]]),
    );
    expect(rt.sandbox.transactions()).toBe(40);
    const req = request(rt, rt.owner);
    expect(rt.scriptRun(rt.owner, 'planRun', req)).toMatchObject({
      distinct: 100,
      cached: 40,
      transactions: 60,
    });
    let progress = rt.scriptRun(rt.owner, 'startRun', req, false) as Progress;
    while (!progress.finished) progress = rt.scriptRun(rt.owner, 'runChunk', progress.runId) as Progress;
    expect(rt.sandbox.transactions()).toBe(100);
    expect(progress.counts).toMatchObject({ spent: 60, cached: 40 });
  });
});
