// Must show 4: the API key is never in document or script properties, caches, logs, error messages,
// the HTML or data sent to the browser, the sheet, the build output, or any file of this package
// (fixtures included). A whole session is played through every path that handles a key, then
// everything the runtime recorded is scanned for the keys (and for a rejected one). The scan is
// shown to work: the one place a key must be, the saver's user properties, is found by it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';
import { COLLABORATOR_KEY, newRuntime, OWNER_KEY, phone } from './helpers.js';
import { DIST, type Runtime } from './runtime/index.js';

const PACKAGE = join(DIST, '..');
const REJECTED_KEY = 'rejected key with spaces 1234';
const SECRETS = [OWNER_KEY, COLLABORATOR_KEY, REJECTED_KEY];

function recorded(rt: Runtime): Record<string, string> {
  const sheetText: string[] = [];
  for (const sheet of rt.spreadsheet.sheets) {
    for (const cell of sheet.cells.values())
      sheetText.push(`${String(cell.value)} ${cell.formula ?? ''} ${cell.error ?? ''}`);
  }
  return {
    'document properties': JSON.stringify([...rt.documentProperties.values]),
    'script properties': JSON.stringify([...rt.scriptProperties.values]),
    'document cache': JSON.stringify([...rt.documentCache.entries]),
    'script cache': JSON.stringify([...rt.scriptCache.entries]),
    'user caches': JSON.stringify([rt.owner, rt.collaborator].map((u) => [...rt.userCache(u).entries])),
    logs: rt.logs.join('\n'),
    'error messages': rt.errors.join('\n'),
    'HTML shown': JSON.stringify(rt.ui),
    'google.script.run results': rt.browserTraffic.join('\n'),
    toasts: rt.spreadsheet.toasts.join('\n'),
    sheet: sheetText.join('\n'),
    'execution records': JSON.stringify(rt.executions),
  };
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === '.turbo') return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

test('no key anywhere but the user properties of the user who saved it', () => {
  const rt = newRuntime({ ownerKey: false });
  const { owner, collaborator } = rt;
  // Keys saved from the sidebar (google.script.run), a refused one, then used everywhere.
  rt.open(owner, 'NONE');
  rt.run(owner, 'showSetKey');
  expect(() => rt.scriptRun(owner, 'saveSettings', { apiKey: REJECTED_KEY })).toThrow(/not saved/);
  rt.scriptRun(owner, 'saveSettings', { apiKey: OWNER_KEY });
  rt.run(collaborator, 'showSidebar');
  rt.scriptRun(collaborator, 'saveSettings', { apiKey: COLLABORATOR_KEY, baseUrl: 'https://api.tdg1.io/' });
  expect(() => rt.scriptRun(collaborator, 'saveSettings', { baseUrl: 'https://evil.example/' })).toThrow(
    /allow-list/,
  );
  const state = rt.scriptRun(collaborator, 'getSidebarState') as {
    settings: { keySet: boolean; keyHint: string };
  };
  expect(state.settings).toMatchObject({ keySet: true, keyHint: COLLABORATOR_KEY.slice(-4) });

  rt.type('Sheet1', 'A1:B6', [
    ['Name', 'Phone'],
    ...Array.from({ length: 5 }, (_, i) => [`Lead ${i}`, phone(i)]),
  ]);
  rt.type('Sheet1', 'A7:B7', [['Fault', '5550000500']]);
  rt.type('Sheet1', 'D1', [['=PHONELOOKUP(B2:B7)']]);
  rt.recalculate(collaborator);
  rt.select('Sheet1', 'A1:B7');
  const selection = (rt.scriptRun(collaborator, 'describeSelection') as Record<string, number>) ?? {};
  const request = {
    selection: { sheetId: selection.sheetId, row: 1, column: 1, numRows: 7, numColumns: 2 },
    operation: 'phone-lookup',
    mapping: { Phone: 1 },
    columns: ['FName'],
    targetColumn: 20,
  };
  rt.scriptRun(collaborator, 'planRun', request);
  let progress = rt.scriptRun(collaborator, 'startRun', request, false) as {
    runId: string;
    finished: boolean;
  };
  while (!progress.finished)
    progress = rt.scriptRun(collaborator, 'runChunk', progress.runId) as typeof progress;
  rt.select('Sheet1', 'D1');
  rt.run(owner, 'freezeResults');
  rt.run(owner, 'showHelp');
  // A refused key, in a formula and in the sidebar: the messages must not quote it.
  rt.scriptRun(owner, 'saveSettings', { apiKey: `${OWNER_KEY}-old` });
  rt.type('Sheet1', 'A20:C20', [['Later', '5550109999', '=PHONELOOKUP(B20)']]);
  rt.recalculate();
  expect(rt.values('Sheet1', 'C20')[0]?.[0]).toBe('#ERROR!');
  expect(rt.cell('Sheet1', 'C20')?.error).toMatch(/refused \(401\)/);
  rt.scriptRun(owner, 'saveSettings', { apiKey: OWNER_KEY });

  // The scan finds a key where one is (the saver's user properties) ...
  expect(JSON.stringify([...rt.userProperties(owner).values])).toContain(OWNER_KEY);
  expect(JSON.stringify([...rt.userProperties(collaborator).values])).toContain(COLLABORATOR_KEY);
  expect(rt.http.some((h) => h.headers['x-api-key'] === COLLABORATOR_KEY)).toBe(true);
  // ... and nowhere else.
  const places = recorded(rt);
  expect(places['HTML shown']?.length).toBeGreaterThan(10_000);
  expect(places['google.script.run results']?.length).toBeGreaterThan(1000);
  expect(places.logs).toBeDefined();
  for (const [place, text] of Object.entries(places)) {
    for (const secret of SECRETS) {
      expect(text.includes(secret), `${place} holds a key`).toBe(false);
      expect(text.includes(`${OWNER_KEY}-old`), `${place} holds a key`).toBe(false);
    }
  }
});

test('no key in the build output or in any file of the package but the one defining the test keys', () => {
  const allowed = join(PACKAGE, 'test', 'helpers.ts');
  const scanned = files(PACKAGE).filter((f) => f !== allowed && !f.endsWith('.png'));
  expect(scanned.some((f) => f.startsWith(DIST))).toBe(true);
  for (const file of scanned) {
    const text = readFileSync(file, 'utf8');
    for (const secret of [OWNER_KEY, COLLABORATOR_KEY]) {
      expect(text.includes(secret), `${relative(PACKAGE, file)} holds a test key`).toBe(false);
    }
  }
});

test('issue 8 paths: the key check, misbehaving answers, a key with a line break, a service that echoes the key', () => {
  const rt = newRuntime({ ownerKey: false });
  const { owner } = rt;
  const withBreak = `${OWNER_KEY}\r\n`;
  const inside = `${OWNER_KEY.slice(0, 10)}\n${OWNER_KEY.slice(10)}`;
  expect(() => rt.scriptRun(owner, 'saveSettings', { apiKey: inside })).toThrow(/line break/);
  // Surrounding line breaks are a paste's: saved without them, then checked for free.
  rt.scriptRun(owner, 'saveSettings', { apiKey: withBreak });
  expect(rt.scriptRun(owner, 'checkKey')).toMatchObject([{ verdict: 'accepted' }, { verdict: 'accepted' }]);
  rt.sandbox.configure({ misbehave: ['redirect'] });
  rt.scriptRun(owner, 'checkKey');
  // An error that would quote the key (a base URL built from it): the message reaches the sidebar scrubbed.
  expect(() => rt.scriptRun(owner, 'saveSettings', { baseUrl: `https://${OWNER_KEY}.example/` })).toThrow(
    /\[key hidden\].*allow-list/,
  );

  // A service that sends the key back in an unknown field, and in an error page.
  const sandbox = rt.sandbox as { handle: typeof rt.sandbox.handle };
  const handle = sandbox.handle.bind(rt.sandbox);
  sandbox.handle = (request) => {
    const answer = handle(request);
    const key = String(request.headers['x-api-key'] ?? '');
    if (answer.status === 200 && answer.body.startsWith('{')) {
      return {
        ...answer,
        body: JSON.stringify({ ...JSON.parse(answer.body), Echo: key, Nested: { Key: key } }),
      };
    }
    return { ...answer, body: `${answer.body} key=${key} ${encodeURIComponent(key)}` };
  };
  rt.sandbox.configure({ misbehave: ['extra-fields'] });
  rt.type('Sheet1', 'A1:B4', [
    ['Phone', 'Out'],
    [phone(11), '=PHONELOOKUP(A2,"FName,Echo,Nested.Key,DID")'],
    [phone(12), '=PHONELOOKUP(A3,"Echo")'],
    ['5550000500', '=PHONELOOKUP(A4,"Echo")'],
  ]);
  rt.recalculate();
  expect(String(rt.values('Sheet1', 'C2')[0]?.[0])).toBe('[key hidden]');
  rt.sandbox.configure({ misbehave: ['html-200'] });
  rt.type('Sheet1', 'A5:B5', [[phone(13), '=PHONELOOKUP(A5)']]);
  rt.recalculate();
  rt.sandbox.configure({ misbehave: [] });
  rt.select('Sheet1', 'A1:A5');
  const request = {
    selection: { sheetId: rt.sheet().id, row: 1, column: 1, numRows: 5, numColumns: 1 },
    operation: 'phone-lookup',
    mapping: { Phone: 0 },
    columns: ['FName'],
    targetColumn: 20,
    askAgainUnreadable: true,
  };
  rt.scriptRun(owner, 'planRun', request);
  let progress = rt.scriptRun(owner, 'startRun', request, false) as { runId: string; finished: boolean };
  while (!progress.finished) progress = rt.scriptRun(owner, 'runChunk', progress.runId) as typeof progress;
  rt.run(owner, 'keepAnswers');
  rt.scriptRun(owner, 'saveSettings', { apiKey: `${OWNER_KEY}-old` });
  rt.scriptRun(owner, 'checkKey');

  expect(rt.http.filter((h) => h.headers['x-api-key'] === OWNER_KEY).length).toBeGreaterThan(5);
  const places = recorded(rt);
  expect(places.sheet).toContain('[key hidden]');
  for (const [place, text] of Object.entries(places)) {
    for (const secret of [OWNER_KEY, `${OWNER_KEY}-old`, encodeURIComponent(OWNER_KEY)]) {
      expect(text.includes(secret), `${place} holds a key`).toBe(false);
    }
  }
});
