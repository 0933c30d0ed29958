// Issue 35: the fake runtime is at least as strict as Apps Script where a review found it kinder:
// fetchAll's parallelism and cost, what Spreadsheet calls cost, the 30-second stop, and executions
// running at the same time. The assumptions are written in the runtime's comments and its README.
import { describe, expect, test } from 'vitest';
import { newRuntime, OWNER_KEY, phone } from './helpers.js';
import type { Runtime } from './runtime/index.js';
import { SPREADSHEET_COSTS } from './runtime/spreadsheet-costs.js';

const request = (p: string) =>
  `{url: 'https://testapi.tdg1.io/v3/lookup/phone', method: 'post', contentType: 'application/json', headers: {'x-api-key': '${OWNER_KEY}'}, payload: JSON.stringify({Phone: '${p}'}), muteHttpExceptions: true}`;

const batch = (from: number, count: number) =>
  `[${Array.from({ length: count }, (_, i) => request(phone(from + i))).join(',')}]`;

/** A snippet run as a custom function's execution alongside others. */
const custom = (rt: Runtime, snippet: string) => ({
  user: rt.owner,
  mode: 'custom' as const,
  fn: '(snippet)',
  args: [],
  snippet,
});

describe('fetchAll', () => {
  test('its requests run concurrently and the call returns when the slowest is done', () => {
    // Latency with a long tail: each request its own service time.
    const rt = newRuntime({ latencyMs: 300, sandbox: { latencyP99Ms: 3000 } });
    const took = rt.evaluate(
      rt.owner,
      'custom',
      `var t = Date.now(); UrlFetchApp.fetchAll(${batch(0, 20)}); Date.now() - t`,
    );
    const sent = rt.http.slice(-20);
    expect(new Set(sent.map((h) => h.at)).size).toBe(1);
    const latencies = sent.map((h) => h.latencyMs);
    expect(new Set(latencies).size).toBeGreaterThan(10);
    expect(took).toBe(Math.ceil(Math.max(...latencies)));
  });

  test('a round that ends past 30 s: the service counted every request, the execution stopped, nothing was kept', () => {
    const rt = newRuntime({ latencyMs: 16_000 });
    const code = `var c = CacheService.getDocumentCache();
      UrlFetchApp.fetchAll(${batch(0, 40)}); c.put('round 1', 'kept');
      try { UrlFetchApp.fetchAll(${batch(40, 40)}); } catch (e) { c.put('round 2', 'kept'); }
      c.put('after', 'kept'); 'returned'`;
    expect(() => rt.evaluate(rt.owner, 'custom', code)).toThrow('Exceeded maximum execution time');
    expect(rt.sandbox.transactions()).toBe(80);
    expect([...rt.documentCache.entries.keys()]).toEqual(['round 1']);
    expect((rt.executions.at(-1)?.ended ?? 0) - (rt.executions.at(-1)?.started ?? 0)).toBe(30_000);
  });

  test('executions at the same time: the service sees each request at its own execution’s time', () => {
    const rt = newRuntime({ latencyMs: 500, sandbox: { rate: 40, burst: 40 } });
    const results = rt.runConcurrently([
      custom(rt, `UrlFetchApp.fetchAll(${batch(0, 40)}).map(function (r) { return r.getResponseCode(); })`),
      custom(
        rt,
        `Utilities.sleep(2000); UrlFetchApp.fetchAll(${batch(40, 40)}).map(function (r) { return r.getResponseCode(); })`,
      ),
    ]);
    // 2 s later the token bucket has refilled: the second round is answered too, not refused as if
    // both had arrived at the first one's moment.
    for (const result of results) expect(result).toEqual({ value: Array.from({ length: 40 }, () => 200) });
    const times = [...new Set(rt.http.map((h) => h.at))];
    expect(times).toHaveLength(2);
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(2000);
  });
});

describe('Spreadsheet calls', () => {
  test('every call that asks the spreadsheet something costs 160 ms; making a range and its coordinates are free', () => {
    const rt = newRuntime();
    expect(SPREADSHEET_COSTS.call).toBe(160);
    const took = (code: string) =>
      rt.evaluate(rt.owner, 'custom', `var t0 = Date.now(); ${code}; Date.now() - t0`) as number;
    expect(took('SpreadsheetApp.getActiveSpreadsheet()')).toBe(160);
    expect(took('SpreadsheetApp.getActiveSpreadsheet().getId()')).toBe(320);
    expect(took("SpreadsheetApp.getActiveSpreadsheet().getSheetByName('Sheet1').getMaxColumns()")).toBe(480);
    expect(
      took(
        "var r = SpreadsheetApp.getActiveSpreadsheet().getRange('A1:B2'); r.getNumRows(); r.getA1Notation()",
      ),
    ).toBe(160);
    // getValues: 160 ms, plus 0.002 ms per cell, rounded up to the next millisecond.
    expect(took("SpreadsheetApp.getActiveSpreadsheet().getRange('A1:B2').getValues()")).toBe(160 + 161);
  });
});

describe('the 30-second stop', () => {
  test('running alongside others: stopped mid-way, what it had not written is lost, its catch runs nothing', () => {
    const rt = newRuntime();
    const results = rt.runConcurrently([
      custom(
        rt,
        `var c = CacheService.getDocumentCache(); c.put('before', 'x'); try { Utilities.sleep(31000); } catch (e) { c.put('caught', 'x'); } c.put('after', 'x'); 1`,
      ),
      custom(rt, `Utilities.sleep(40000); 2`),
    ]);
    expect(results).toEqual([
      { error: 'Exceeded maximum execution time' },
      { error: 'Exceeded maximum execution time' },
    ]);
    expect([...rt.documentCache.entries.keys()]).toEqual(['before']);
    for (const e of rt.executions.filter((x) => x.mode === 'custom'))
      expect(e.ended - e.started).toBe(30_000);
  });
});

describe('executions at the same time', () => {
  const increment = `var c = CacheService.getDocumentCache(); var n = Number(c.get('n') || 0); c.put('n', String(n + 1)); n`;

  test('a short service call lets another execution in: two read-modify-writes without a lock lose one', () => {
    const rt = newRuntime();
    const results = rt.runConcurrently([custom(rt, increment), custom(rt, increment)]);
    expect(results).toEqual([{ value: 0 }, { value: 0 }]);
    expect(rt.documentCache.entries.get('n')?.value).toBe('1');
  });

  test('under the document lock they do not, and the one that waited went on when the lock was released', () => {
    const rt = newRuntime();
    const locked = `var l = LockService.getDocumentLock(); l.tryLock(5000); ${increment.replace(/ n$/, '')}; Utilities.sleep(700); l.releaseLock(); Date.now()`;
    const [first, second] = rt.runConcurrently([custom(rt, locked), custom(rt, locked)]) as {
      value: number;
    }[];
    expect(rt.documentCache.entries.get('n')?.value).toBe('2');
    // The second took the lock when the first released it (not at a polling interval, not at once).
    expect((second?.value ?? 0) - (first?.value ?? 0)).toBeGreaterThanOrEqual(700);
    expect((second?.value ?? 0) - (first?.value ?? 0)).toBeLessThan(800);
  });

  test('many at once run to the end in time order, each on its own clock', () => {
    const rt = newRuntime();
    const results = rt.runConcurrently(
      Array.from({ length: 40 }, (_, i) => custom(rt, `Utilities.sleep(${(40 - i) * 100}); ${i}`)),
      40,
    );
    expect(results).toEqual(Array.from({ length: 40 }, (_, i) => ({ value: i })));
    const ends = rt.executions.filter((x) => x.mode === 'custom').map((e) => e.ended);
    expect(ends).toEqual([...ends].sort((a, b) => a - b));
  });
});
