// Issue 39: the runtime's installable triggers, notes and copyTo are as strict as Apps Script with
// an editor add-on (runtime/triggers.ts, trigger-firing.ts, spreadsheet-notes-copy.ts): who may
// create a trigger, with which scope, how often, how many; as whom it runs; the day's trigger
// runtime; notes read but not written by a custom function; copyTo of formulas only where modelled.
import { expect, test } from 'vitest';
import { newRuntime } from './helpers.js';
import { QUOTA_MESSAGE } from './runtime/triggers.js';

// A handler that reads and leaves triggers alone (runAutomation removes a trigger it does not know).
const HOURLY = "ScriptApp.newTrigger('getAllowance').timeBased().everyHours(1).create().getUniqueId()";

test('only an authorised execution creates a trigger: not a custom function, not a simple trigger', () => {
  const rt = newRuntime();
  expect(() => rt.evaluate(rt.owner, 'custom', HOURLY)).toThrow(
    'You do not have permission to call ScriptApp.newTrigger',
  );
  expect(() => rt.evaluate(rt.owner, 'limited', HOURLY)).toThrow(
    'You do not have permission to call ScriptApp.newTrigger',
  );
  expect(() => rt.evaluate(rt.owner, 'none', HOURLY)).toThrow('You do not have permission');
  expect(typeof rt.evaluate(rt.owner, 'full', HOURLY)).toBe('string');
});

test('the scope must be in the manifest', () => {
  const rt = newRuntime();
  (rt as unknown as { scopes: string[] }).scopes = rt.scopes.filter((s) => !s.endsWith('script.scriptapp'));
  expect(() => rt.evaluate(rt.owner, 'full', HOURLY)).toThrow(
    'You do not have permission to call ScriptApp.newTrigger. Required permissions: https://www.googleapis.com/auth/script.scriptapp',
  );
});

test('an add-on: at most hourly, one time-based trigger per user per document, 20 per user, a real handler', () => {
  const rt = newRuntime();
  expect(() =>
    rt.evaluate(
      rt.owner,
      'full',
      "ScriptApp.newTrigger('runAutomation').timeBased().everyMinutes(30).create()",
    ),
  ).toThrow('An add-on may not create a time-based trigger that runs more often than once an hour.');
  expect(() =>
    rt.evaluate(
      rt.owner,
      'full',
      "ScriptApp.newTrigger('noSuchFunction').timeBased().everyHours(1).create()",
    ),
  ).toThrow('Script function not found: noSuchFunction');
  rt.evaluate(rt.owner, 'full', HOURLY);
  expect(() => rt.evaluate(rt.owner, 'full', HOURLY)).toThrow(
    'This add-on has created too many time-based triggers in this document for this Google user account.',
  );
  // Another user may have theirs in the same document.
  rt.evaluate(rt.collaborator, 'full', HOURLY);
  // 20 per user per script, whatever the documents.
  for (let i = 0; i < 19; i++) {
    rt.triggers.triggers.push({
      id: `other-${i}`,
      user: rt.owner.email,
      handler: 'runAutomation',
      type: 'CLOCK',
      documentId: `another-document-${i}`,
      everyMs: 3_600_000,
      deleted: false,
    });
  }
  expect(() =>
    rt.evaluate(
      rt.owner,
      'full',
      "ScriptApp.newTrigger('runAutomation').forSpreadsheet(SpreadsheetApp.getActive()).onChange().create()",
    ),
  ).toThrow('This script has too many triggers.');
});

test('a user sees and deletes only their own triggers; a trigger runs as its creator', () => {
  const rt = newRuntime();
  const id = rt.evaluate(rt.collaborator, 'full', HOURLY) as string;
  expect(rt.evaluate(rt.owner, 'full', 'ScriptApp.getProjectTriggers().length')).toBe(0);
  expect(
    rt.evaluate(rt.collaborator, 'full', 'ScriptApp.getUserTriggers(SpreadsheetApp.getActive()).length'),
  ).toBe(1);
  expect(() =>
    rt.evaluate(
      rt.owner,
      'full',
      `ScriptApp.deleteTrigger({ getUniqueId: function () { return '${id}'; } })`,
    ),
  ).toThrow('No such trigger, or it belongs to another user.');
  const runs = rt.passTime(2 * 3_600_000);
  expect(runs.map((r) => r.user)).toEqual([rt.collaborator.email, rt.collaborator.email]);
  expect(rt.executions.filter((e) => e.fn === 'getAllowance').map((e) => e.user)).toEqual([
    rt.collaborator.email,
    rt.collaborator.email,
  ]);
});

test("the day's trigger runtime: a run past it is stopped where it is, later ones do not run until the next UTC day", () => {
  const rt = newRuntime();
  rt.evaluate(rt.owner, 'full', HOURLY);
  rt.triggers.quotaMs = 10 * 60_000;
  rt.triggers.spend(rt.owner.email, rt.clock.now(), 9 * 60_000);
  const runs = rt.passTime(3 * 3_600_000);
  // The handler is quick: the first run fits in the minute left.
  expect(runs[0]).toMatchObject({ ran: true, error: null });
  // Another script of the owner uses the rest of the day.
  rt.triggers.spend(rt.owner.email, rt.clock.now(), 60_000);
  const later = rt.passTime(3_600_000);
  expect(later).toMatchObject([{ ran: false, error: QUOTA_MESSAGE }]);
  // A run that would pass it is stopped at it, with Apps Script's message.
  const slow = newRuntime();
  slow.triggers.quotaMs = 60_000;
  slow.evaluate(slow.owner, 'full', HOURLY);
  slow.triggers.spend(slow.owner.email, slow.clock.now(), 59_990);
  expect(slow.passTime(3_600_000)).toMatchObject([{ ran: true, error: QUOTA_MESSAGE }]);
});

test('notes: a custom function reads them and may not write them; copyTo of a formula only to the same place', () => {
  const rt = newRuntime();
  rt.sheet().ensure(1, 1).note = 'hello';
  expect(rt.evaluate(rt.owner, 'custom', "SpreadsheetApp.getActiveSheet().getRange('A1').getNote()")).toBe(
    'hello',
  );
  expect(() =>
    rt.evaluate(rt.owner, 'custom', "SpreadsheetApp.getActiveSheet().getRange('A1').setNote('x')"),
  ).toThrow('You do not have permission to call setNote');
  rt.type('Sheet1', 'B2', [['=A1']]);
  expect(() =>
    rt.evaluate(
      rt.owner,
      'full',
      "var s = SpreadsheetApp.getActiveSheet(); s.getRange('B2').copyTo(s.getRange('C3'))",
    ),
  ).toThrow('copyTo of a formula to another position is not modelled');
});
