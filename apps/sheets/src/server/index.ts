// The bundle's exports become the global `EnrichSheets`; the build writes a top-level function for
// each (Apps Script only calls top-level function declarations) and one per custom function, each
// calling `EnrichSheets.customFunction(NAME, arguments)`.
//
// Every menu item and sidebar call may write the spreadsheet, unlike custom functions; so each first
// keeps the answers formulas bought that are still only in the cache (keep.ts). It costs nothing.
import * as bulk from './bulk.js';
import { keepingAnswers } from './keep.js';
import * as menu from './menu.js';
import * as sidebar from './sidebar-api.js';

export { customFunction } from './custom.js';
export { onEdit, onInstall, onOpen } from './menu.js';

export const planRun = keepingAnswers(bulk.planRun);
export const startRun = keepingAnswers(bulk.startRun);
export const runChunk = keepingAnswers(bulk.runChunk);
export const discardRun = keepingAnswers(bulk.discardRun);
export const freezeResults = keepingAnswers(menu.freezeResults);
export const showHelp = keepingAnswers(menu.showHelp);
export const showSetKey = keepingAnswers(menu.showSetKey);
export const showSettings = keepingAnswers(menu.showSettings);
export const showSidebar = keepingAnswers(menu.showSidebar);
export const describeSelection = keepingAnswers(sidebar.describeSelection);
// The sidebar's state reports how many answers are not kept yet: it does not keep them itself
// (opening the sidebar from the menu did, and "Keep them" does).
export const getSidebarState = sidebar.getSidebarState;
export const getAnswersInfo = sidebar.answersInfo;
export const saveSettings = keepingAnswers(sidebar.saveSettings);
export const freezeAllResults = keepingAnswers(sidebar.freezeAllResults);
// keepAnswers keeps them itself, and says how many.
export const keepAnswers = sidebar.keepAnswers;
