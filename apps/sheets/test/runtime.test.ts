// The fake Apps Script runtime is at least as strict as the platform (docs/platforms.md): these
// tests hold it to that, so that the add-on's tests cannot pass on a kinder platform than Google's.
import { describe, expect, test } from 'vitest';
import { newRuntime, OWNER_KEY } from './helpers.js';
import { IllegalArgument, passArgument, passResult, UndeliverableResult } from './runtime/script-run.js';

describe('a fresh context holds only what Apps Script provides', () => {
  test('no Node or browser globals, the Apps Script services present', () => {
    const rt = newRuntime();
    const missing = [
      'setTimeout',
      'setInterval',
      'setImmediate',
      'queueMicrotask',
      'fetch',
      'URL',
      'URLSearchParams',
    ];
    missing.push(
      'TextEncoder',
      'TextDecoder',
      'structuredClone',
      'Buffer',
      'process',
      'require',
      'module',
      'global',
    );
    expect(rt.evaluate(rt.owner, 'full', `[${missing.map((n) => `typeof ${n}`).join(',')}]`)).toEqual(
      missing.map(() => 'undefined'),
    );
    const present = ['UrlFetchApp', 'PropertiesService', 'CacheService', 'LockService', 'SpreadsheetApp'];
    present.push('HtmlService', 'Utilities', 'Session', 'Logger', 'console');
    expect(rt.evaluate(rt.owner, 'full', `[${present.map((n) => `typeof ${n}`).join(',')}]`)).toEqual(
      present.map(() => 'object'),
    );
  });

  test('each execution starts afresh: globals set by one are gone in the next', () => {
    const rt = newRuntime();
    rt.evaluate(rt.owner, 'full', 'globalThis.leftOver = 1');
    expect(rt.evaluate(rt.owner, 'full', 'typeof leftOver')).toBe('undefined');
  });

  test('time is virtual: Date follows the clock, which only sleep and fetch latency move', () => {
    const rt = newRuntime();
    const [a, b, c] = rt.evaluate(
      rt.owner,
      'full',
      'var a = Date.now(); Utilities.sleep(1500); [a, Date.now(), new Date().getTime()]',
    ) as number[];
    expect((b as number) - (a as number)).toBe(1500);
    expect(c).toBe(b);
    expect(() => rt.evaluate(rt.owner, 'full', 'Utilities.sleep(300001)')).toThrow(/milliseconds/);
  });

  test('computeHmacSha256Signature gives HMAC-SHA-256 as signed bytes (RFC 4231, test case 2)', () => {
    const rt = newRuntime();
    const hex = rt.evaluate(
      rt.owner,
      'custom',
      `Utilities.computeHmacSha256Signature('what do ya want for nothing?', 'Jefe', Utilities.Charset.UTF_8)
        .map(function (b) { return ((b + 256) % 256).toString(16).padStart(2, '0'); }).join('')`,
    );
    expect(hex).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });
});

describe('custom functions and AuthMode.NONE', () => {
  test('custom functions may read but not write, and may not reach the UI, Session or other files', () => {
    const rt = newRuntime();
    const denied = [
      "SpreadsheetApp.getActiveSpreadsheet().getSheets()[0].getRange('A1').setValue('x')",
      "SpreadsheetApp.getActiveSpreadsheet().getSheets()[0].getRange('A1').setValues([['x']])",
      "SpreadsheetApp.getActiveSpreadsheet().getSheets()[0].getRange('A1').setNumberFormat('@')",
      'SpreadsheetApp.getUi()',
      "SpreadsheetApp.openById('x')",
      'Session.getActiveUser()',
      "PropertiesService.getUserProperties().setProperty('a', 'b')",
      "PropertiesService.getDocumentProperties().deleteProperty('a')",
    ];
    for (const code of denied) {
      expect(() => rt.evaluate(rt.collaborator, 'custom', code), code).toThrow(
        /You do not have permission to call/,
      );
    }
    expect(
      rt.evaluate(
        rt.owner,
        'custom',
        "SpreadsheetApp.getActiveSpreadsheet().getSheets()[0].getRange('A1').getValue()",
      ),
    ).toBe('');
    expect(rt.cell('Sheet1', 'A1')?.writes ?? 0).toBe(0);
  });

  test("in a custom function, getUserProperties() is the owner's store, whoever edits the cell", () => {
    const rt = newRuntime();
    rt.userProperties(rt.collaborator).values.set('who', 'collaborator');
    rt.userProperties(rt.owner).values.set('who', 'owner');
    const read = "PropertiesService.getUserProperties().getProperty('who')";
    expect(rt.evaluate(rt.collaborator, 'custom', read)).toBe('owner');
    expect(rt.evaluate(rt.collaborator, 'full', read)).toBe('collaborator');
  });

  test('AuthMode.NONE may build menus only', () => {
    const rt = newRuntime();
    for (const code of [
      'PropertiesService.getUserProperties()',
      'CacheService.getDocumentCache()',
      "UrlFetchApp.fetch('https://api.tdg1.io/v2/verify/email')",
      'SpreadsheetApp.getActiveSpreadsheet().getSheets()[0].getLastRow()',
    ]) {
      expect(() => rt.evaluate(rt.owner, 'none', code), code).toThrow(/You do not have permission to call/);
    }
    expect(() => rt.open(rt.owner, 'NONE')).not.toThrow();
    expect(rt.ui.menus.at(-1)?.items).toContain('Set API key… -> showSetKey');
  });
});

describe('time limits', () => {
  test('30 s for a custom function, 6 min otherwise; catching the error does not save the script', () => {
    const rt = newRuntime();
    expect(() => rt.evaluate(rt.owner, 'custom', 'Utilities.sleep(29000); Utilities.sleep(2000)')).toThrow(
      'Exceeded maximum execution time',
    );
    expect(() =>
      rt.evaluate(rt.owner, 'custom', "try { Utilities.sleep(31000) } catch (e) {} 'done'"),
    ).toThrow('Exceeded maximum execution time');
    expect(rt.evaluate(rt.owner, 'full', 'Utilities.sleep(300000); Utilities.sleep(50000); 1')).toBe(1);
    expect(() => rt.evaluate(rt.owner, 'full', 'Utilities.sleep(300000); Utilities.sleep(61000)')).toThrow(
      'Exceeded maximum execution time',
    );
  });
});

describe('UrlFetchApp', () => {
  const request = (phone: string) =>
    `{url: 'https://testapi.tdg1.io/v3/lookup/phone', method: 'post', contentType: 'application/json', headers: {'x-api-key': '${OWNER_KEY}'}, payload: JSON.stringify({Phone: '${phone}'}), muteHttpExceptions: true}`;

  test('fetchAll runs its requests concurrently on the clock, fetch one after another', () => {
    const rt = newRuntime({ latencyMs: 300 });
    const batch = Array.from({ length: 10 }, (_, i) => request(`55501020${10 + i}`)).join(',');
    const all = rt.evaluate(
      rt.owner,
      'custom',
      `var t = Date.now(); UrlFetchApp.fetchAll([${batch}]); Date.now() - t`,
    );
    expect(all).toBe(300);
    const one = rt.evaluate(
      rt.owner,
      'custom',
      `var t = Date.now(); [${batch}].forEach(function (r) { UrlFetchApp.fetch(r.url, r) }); Date.now() - t`,
    );
    expect(one).toBe(3000);
  });

  test('only URLs on the manifest allow-list; non-2xx throws unless muted; an object payload is form-encoded', () => {
    const rt = newRuntime();
    expect(() =>
      rt.evaluate(rt.owner, 'full', "UrlFetchApp.fetch('https://elsewhere.example/v2/verify/email')"),
    ).toThrow(/not allowed by the urlFetchWhitelist/);
    expect(() =>
      rt.evaluate(
        rt.owner,
        'full',
        "UrlFetchApp.fetch('https://api.tdg1.io/v2/verify/email', {method: 'post', payload: '{}', contentType: 'application/json'})",
      ),
    ).toThrow(/Request failed for https:\/\/api\.tdg1\.io returned code 401/);
    expect(
      rt.evaluate(
        rt.owner,
        'full',
        `UrlFetchApp.fetch('https://api.tdg1.io/v2/verify/email', {method: 'post', payload: {Email: 'a@b.co'}, headers: {'x-api-key': '${OWNER_KEY}'}, muteHttpExceptions: true}).getResponseCode()`,
      ),
    ).toBe(415);
    expect(rt.http.at(-1)?.body).toBe('Email=a%40b.co');
  });

  test('the daily quota of 20,000 calls per user', () => {
    const rt = newRuntime();
    const code = `var r = ${request('5550102030')}; var batch = []; for (var i = 0; i < 1000; i++) batch.push(r);
      for (var j = 0; j < 20; j++) UrlFetchApp.fetchAll(batch); UrlFetchApp.fetch(r.url, r)`;
    expect(() => rt.evaluate(rt.owner, 'full', code)).toThrow(
      'Service invoked too many times for one day: urlfetch.',
    );
    expect(rt.http).toHaveLength(20_000);
  });

  test('50 MB per request', () => {
    const rt = newRuntime();
    const code = `UrlFetchApp.fetch('https://api.tdg1.io/v2/verify/email', {method: 'post', payload: new Array(50 * 1024 * 1024 + 2).join('x')})`;
    expect(() => rt.evaluate(rt.owner, 'full', code)).toThrow(/payload too large/);
  });
});

describe('CacheService and PropertiesService limits', () => {
  test('cache keys up to 250 characters, values up to 100 KB, expiry 1 to 21,600 s', () => {
    const rt = newRuntime();
    const cache = 'CacheService.getDocumentCache()';
    expect(() => rt.evaluate(rt.owner, 'full', `${cache}.put(new Array(252).join('k'), 'v')`)).toThrow(
      /Argument too large: key/,
    );
    expect(() => rt.evaluate(rt.owner, 'full', `${cache}.put('k', new Array(102402).join('v'))`)).toThrow(
      /Argument too large: value/,
    );
    expect(() => rt.evaluate(rt.owner, 'full', `${cache}.put('k', 'v', 21601)`)).toThrow(
      /expirationInSeconds/,
    );
    rt.evaluate(rt.owner, 'full', `${cache}.put('k', 'v', 60)`);
    expect(rt.evaluate(rt.owner, 'custom', `${cache}.get('k')`)).toBe('v');
    rt.evaluate(rt.owner, 'full', 'Utilities.sleep(61000)');
    expect(rt.evaluate(rt.owner, 'custom', `${cache}.get('k')`)).toBeNull();
  });

  test('past 1,000 items the cache keeps the 900 furthest from expiry', () => {
    const rt = newRuntime();
    rt.evaluate(
      rt.owner,
      'full',
      "var c = CacheService.getDocumentCache(); c.put('soon', 'x', 10); var all = {}; for (var i = 0; i < 1000; i++) all['k' + i] = 'v'; c.putAll(all, 21600)",
    );
    expect(rt.documentCache.entries.size).toBe(900);
    expect(rt.documentCache.entries.has('soon')).toBe(false);
  });

  test('properties: 9 KB per value, 500 KB per store', () => {
    const rt = newRuntime();
    const props = 'PropertiesService.getUserProperties()';
    expect(() =>
      rt.evaluate(rt.owner, 'full', `${props}.setProperty('big', new Array(9 * 1024 + 2).join('x'))`),
    ).toThrow(/Argument too large: value/);
    expect(() =>
      rt.evaluate(
        rt.owner,
        'full',
        `var p = ${props}; for (var i = 0; i < 60; i++) p.setProperty('k' + i, new Array(9000).join('x'))`,
      ),
    ).toThrow(/property storage quota/);
  });
});

describe('Spreadsheet and google.script.run', () => {
  test('setValues must match the range; ranges stay inside the sheet; writing into a spill breaks it', () => {
    const rt = newRuntime();
    const sheet = 'SpreadsheetApp.getActiveSpreadsheet().getSheets()[0]';
    expect(() => rt.evaluate(rt.owner, 'full', `${sheet}.getRange(1, 1, 2, 1).setValues([['a']])`)).toThrow(
      /The number of rows in the data does not match/,
    );
    expect(() => rt.evaluate(rt.owner, 'full', `${sheet}.getRange(1, 27)`)).toThrow(
      /outside the dimensions of the sheet/,
    );
    expect(() => rt.evaluate(rt.owner, 'full', `${sheet}.getRange(1, 1).setValues([[null]])`)).toThrow(
      /cell values must be/,
    );
    rt.type('Sheet1', 'A1', [[5550102030]]);
    rt.type('Sheet1', 'B1', [['=PHONELOOKUP(A1, "FName,LName")']]);
    rt.recalculate();
    expect(rt.cell('Sheet1', 'C1')?.spilledFrom).toBeDefined();
    rt.evaluate(rt.owner, 'full', `${sheet}.getRange('C1').setValue('typed')`);
    expect(rt.values('Sheet1', 'B1:C1')).toEqual([['#REF!', 'typed']]);
  });

  test('google.script.run: no Date or function arguments, undefined in arrays becomes null, a Date result never arrives', () => {
    expect(() => passArgument(new Date())).toThrow(IllegalArgument);
    expect(() => passArgument({ a: () => 1 })).toThrow(IllegalArgument);
    expect(passArgument([1, undefined, { a: undefined, b: 2 }])).toEqual([1, null, { b: 2 }]);
    expect(() => passResult({ when: new Date() })).toThrow(UndeliverableResult);
    const rt = newRuntime();
    expect(() => rt.scriptRun(rt.owner, 'saveSettings', { apiKey: new Date() })).toThrow(IllegalArgument);
  });

  test('locks are released when an execution ends', () => {
    const rt = newRuntime();
    expect(rt.evaluate(rt.owner, 'full', 'LockService.getDocumentLock().tryLock(1000)')).toBe(true);
    expect(rt.evaluate(rt.owner, 'full', 'LockService.getDocumentLock().tryLock(1000)')).toBe(true);
  });
});
