// The add-on menu and what its items open. onOpen may run with AuthMode.NONE (before the add-on is
// authorised in a document), so it only builds the menu: no properties, no cache, no fetch.
import { PERMITTED_USE } from '@enrich/core/universal';
import { FUNCTIONS } from '../spec.js';
import { activeSpreadsheet } from './active-spreadsheet.js';
import { keepCachedAnswers } from './answers/keep.js';
import { freezeSelection } from './formulas/freeze.js';
import { logText } from './key/scrub.js';
import { ADDON_NAME, MENU_PATH } from './messages.js';

export type SidebarView = 'run' | 'key' | 'settings' | 'forget';

export function onOpen(event?: unknown): void {
  buildMenu();
  keepFromTrigger(event);
}

/**
 * The simple trigger on edits: keeps answers formulas bought since the last writable action, when the
 * platform lets a simple trigger of an add-on write (AuthMode.LIMITED, once the add-on is used in
 * the document). Formulas recalculated by the edit run afterwards; their new answers wait for the
 * next edit or action.
 */
export function onEdit(event?: unknown): void {
  keepFromTrigger(event);
}

/**
 * Simple triggers may keep answers only when not in AuthMode.NONE, and may be refused anything
 * else (a service that needs authorisation, a write): they then do nothing, quietly, and the next
 * menu or sidebar action keeps the answers instead.
 */
function keepFromTrigger(event: unknown): void {
  const mode = String((event as { authMode?: unknown } | undefined)?.authMode ?? 'NONE');
  if (mode !== 'LIMITED' && mode !== 'FULL') return;
  try {
    keepCachedAnswers(true);
  } catch (error) {
    console.warn(logText(`Answers not kept from ${mode} trigger: ${(error as Error).message}`));
  }
}

function buildMenu(): void {
  SpreadsheetApp.getUi()
    .createAddonMenu()
    .addItem('Set API key…', 'showSetKey')
    .addItem('Settings…', 'showSettings')
    .addItem('Verify or enrich selection…', 'showSidebar')
    .addItem('Freeze results', 'freezeResults')
    .addItem('Forget a person…', 'showForget')
    .addSeparator()
    .addItem('Help', 'showHelp')
    .addToUi();
}

export function onInstall(event?: unknown): void {
  onOpen(event);
}

export function showSidebar(view: SidebarView = 'run'): void {
  const page = HtmlService.createHtmlOutputFromFile('sidebar').getContent();
  // The page reads its first view from the body; nothing else of the server goes into the HTML.
  const safeView = view === 'key' || view === 'settings' || view === 'forget' ? view : 'run';
  const html = HtmlService.createHtmlOutput(
    page.replace('data-view="run"', `data-view="${safeView}"`),
  ).setTitle(ADDON_NAME);
  SpreadsheetApp.getUi().showSidebar(html);
}

export function showSetKey(): void {
  showSidebar('key');
}

export function showSettings(): void {
  showSidebar('settings');
}

/** Forget a person (issue 38): the sidebar's section for it (privacy/forget.ts). */
export function showForget(): void {
  showSidebar('forget');
}

export function freezeResults(): void {
  const report = freezeSelection();
  const parts = [
    `Froze ${report.formulas} formula${report.formulas === 1 ? '' : 's'} (${report.cells} cells)`,
  ];
  if (report.skipped > 0) parts.push(`${report.skipped} left as formulas (they show an error)`);
  if (report.formulas === 0 && report.skipped === 0)
    parts.push(`select cells with ${ADDON_NAME} formulas first`);
  activeSpreadsheet().toast(parts.join('; '), ADDON_NAME);
}

export function helpText(): string {
  const functions = FUNCTIONS.map(
    (f) => `=${f.name}(${[...f.args.map((a) => a.name), 'fields', 'header'].join(', ')})`,
  );
  return [
    'Formulas (one cell or a column range per argument; results spill right and down):',
    ...functions,
    '',
    'What can spend transactions: a formula asking for an answer that is not cached or kept in this spreadsheet ' +
      '(the first time; again only when the kept answer is older than the freshness setting, 30 days by default, ' +
      'or when it left the 6-hour cache before any menu item, sidebar or edit kept it), and a sidebar run ' +
      '(at most the number it shows before you start). Freeze results, Settings and the key cost nothing; ' +
      'so does keeping answers.',
    '',
    "Whose key: formulas use the spreadsheet owner's key (Google runs formulas with the owner's settings); " +
      `the sidebar uses your own. Set it: ${MENU_PATH} > Set API key…`,
    '',
    PERMITTED_USE,
  ].join('\n');
}

export function showHelp(): void {
  const ui = SpreadsheetApp.getUi();
  ui.alert(`${ADDON_NAME} help`, helpText(), ui.ButtonSet.OK);
}
