// Issue 8 (Sheets part): the add-on never follows a redirect. Apps Script's UrlFetchApp follows
// redirects unless `followRedirects: false` is given (developers.google.com/apps-script/reference/
// url-fetch/url-fetch-app#fetchurl,-params); a followed redirect would send the request, with the
// key in its header, to wherever the Location points. Every request the add-on makes, from a
// custom function (fetchAll) and from a sidebar run (fetchAll), is checked in the fake runtime's log.
import { expect, test } from 'vitest';
import { newRuntime, phone } from './helpers.js';

test('every UrlFetchApp request the add-on makes says followRedirects: false', () => {
  const rt = newRuntime();
  // A formula (single value and a range) and a bulk sidebar run.
  rt.customFunction(rt.owner, 'PHONELOOKUP', Number(phone(1)));
  rt.customFunction(rt.owner, 'EMAILVERIFY', [['ann@example.com'], ['bob@example.com']]);
  rt.type('Sheet1', 'A1:A4', [['Phone'], [Number(phone(2))], [Number(phone(3))], [Number(phone(4))]]);
  rt.select('Sheet1', 'A1:A4');
  const state = rt.scriptRun(rt.owner, 'getSidebarState') as {
    selection: { suggestions: Record<string, { fields: Record<string, number> }> };
  };
  const request = {
    selection: { sheetId: rt.sheet().id, row: 1, column: 1, numRows: 4, numColumns: 1 },
    operation: 'phone-lookup',
    mapping: state.selection.suggestions['phone-lookup']?.fields,
    columns: ['FName'],
    targetColumn: 3,
  };
  const progress = rt.scriptRun(rt.owner, 'startRun', request, false) as { runId: string; done?: boolean };
  rt.scriptRun(rt.owner, 'runChunk', progress.runId);

  const modes = new Set(rt.http.map((h) => h.mode));
  expect(modes).toEqual(new Set(['custom', 'full']));
  expect(rt.http.length).toBeGreaterThanOrEqual(6);
  for (const sent of rt.http) expect(sent.followRedirects).toBe(false);
});
