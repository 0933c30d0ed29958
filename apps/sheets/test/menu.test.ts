// The add-on menu and what its items open: built in AuthMode.NONE without touching anything that
// needs authorisation; the key, settings and forget items open the sidebar on the right view; Help says
// which actions can spend transactions.
import { PERMITTED_USE } from '@enrich/core/universal';
import { expect, test } from 'vitest';
import { newRuntime } from './helpers.js';

test('onOpen and onInstall build the add-on menu, even before authorisation', () => {
  const rt = newRuntime();
  rt.open(rt.collaborator, 'NONE');
  rt.run(rt.owner, 'onInstall', { authMode: 'FULL' });
  const expected = [
    'Set API key… -> showSetKey',
    'Settings… -> showSettings',
    'Verify or enrich selection… -> showSidebar',
    'Freeze results -> freezeResults',
    'Forget a person… -> showForget',
    null,
    'Help -> showHelp',
  ];
  expect(rt.ui.menus.map((m) => m.items)).toEqual([expected, expected]);
});

test('Set API key… and Settings… open the sidebar on their view; the page is the built sidebar', () => {
  const rt = newRuntime();
  rt.run(rt.owner, 'showSetKey');
  expect(rt.lastSidebar(rt.owner)).toContain('<body data-view="key">');
  rt.run(rt.owner, 'showSettings');
  expect(rt.lastSidebar(rt.owner)).toContain('<body data-view="settings">');
  rt.run(rt.owner, 'showForget');
  expect(rt.lastSidebar(rt.owner)).toContain('<body data-view="forget">');
  rt.run(rt.owner, 'showSidebar');
  expect(rt.lastSidebar(rt.owner)).toContain('<body data-view="run">');
  expect(rt.ui.sidebars.at(-1)?.title).toBe('Enrich');
  // A menu item cannot open a sidebar from a custom function.
  expect(() => rt.customFunction(rt.owner, 'showSidebar')).toThrow(/You do not have permission to call/);
});

test('Help lists the functions and says which actions can spend transactions, and whose key formulas use', () => {
  const rt = newRuntime();
  rt.run(rt.owner, 'showHelp');
  const help = rt.ui.alerts.at(-1);
  expect(help?.title).toBe('Enrich help');
  expect(help?.prompt).toContain('=PHONELOOKUP(phone, fields, header)');
  expect(help?.prompt).toContain('=AUTOAPPEND(phone_email_or_full_name, address1, zip, fields, header)');
  expect(help?.prompt).toMatch(
    /What can spend transactions: a formula asking for an answer that is not cached/,
  );
  expect(help?.prompt).toMatch(/Freeze results, Settings and the key cost nothing/);
  expect(help?.prompt).toMatch(/formulas use the spreadsheet owner's key/);
  expect(help?.prompt.trimEnd().endsWith(PERMITTED_USE)).toBe(true);
});

test('settings: base URLs checked against core and the allow-list, empty restores the default', () => {
  const rt = newRuntime();
  expect(() => rt.scriptRun(rt.owner, 'saveSettings', { baseUrl: 'http://api.tdg1.io' })).toThrow(
    /must use https/,
  );
  expect(() => rt.scriptRun(rt.owner, 'saveSettings', { baseUrlV3: 'https://other.example' })).toThrow(
    /not in this add-on's URL allow-list/,
  );
  expect(rt.scriptRun(rt.owner, 'saveSettings', { baseUrl: 'https://api.tdg1.io/' })).toMatchObject({
    baseUrl: 'https://api.tdg1.io',
  });
  expect(rt.scriptRun(rt.owner, 'saveSettings', { baseUrl: '' })).toMatchObject({
    baseUrl: 'https://api.tdg1.io',
  });
  expect(() => rt.scriptRun(rt.owner, 'saveSettings', 'key')).toThrow(/saveSettings takes/);
  // Removing the key.
  expect(rt.scriptRun(rt.owner, 'saveSettings', { apiKey: '' })).toMatchObject({
    keySet: false,
    keyHint: '',
  });
});

test('a base URL saved before the allow-list changed fails the formula at once, with what to do', () => {
  const rt = newRuntime();
  rt.userProperties(rt.owner).values.set('enrich.baseUrlV3', 'https://old-host.example');
  expect(() => rt.customFunction(rt.owner, 'PHONELOOKUP', 5550102030)).toThrow(
    /https:\/\/old-host\.example is not in this add-on's URL allow-list; change the base URL in Extensions > Enrich > Settings/,
  );
  expect(rt.http).toHaveLength(0);
});
