// The bundle's exports become the global `EnrichSheets`; the build writes a top-level function for
// each (Apps Script only calls those) and one per custom function, each calling
// `EnrichSheets.customFunction(NAME, arguments)`. The sidebar's calls are typed from this module
// (sidebar/server.ts), so a name or an argument that does not match fails the typecheck.
//
// Every menu item and sidebar call may write the spreadsheet, unlike custom functions; so each also
// keeps, after its own work, the answers formulas bought that are still only in the cache
// (answers/keep.ts). It costs nothing. Every one passes what it returns, and the message of what it
// throws, through the key scrubber (key/scrub.ts).
import { checkApiKey } from '@enrich/core/universal';
import * as allowance from './allowance/runner.js';
import { keepingAnswers } from './answers/keep.js';
import { runAutomation as runAutomationOf } from './automation/run.js';
import * as automation from './automation/switch.js';
import { customFunction as customFunctionOf } from './formulas/custom-function.js';
import { checkKey as checkKeyOf } from './key/check.js';
import { scrubbing } from './key/scrub.js';
import * as menu from './menu.js';
import * as forget from './privacy/forget.js';
import { provenanceOfSelection } from './provenance/selected.js';
import * as chunk from './run/chunk.js';
import * as plan from './run/plan.js';
import * as start from './run/start.js';
import { undoInfo, undoLastRun as undoLastRunOf } from './run/undo.js';
import * as sidebar from './sidebar-api.js';

export { onEdit, onInstall, onOpen } from './menu.js';

export const customFunction = scrubbing(customFunctionOf);

export const planRun = scrubbing(keepingAnswers(plan.planRun));
export const startRun = scrubbing(keepingAnswers(start.startRun));
// A run keeps its answers when it ends or stops, not after every chunk: rewriting the hidden sheet
// 20 times over would take longer than the run's purchases (the answers are in the sheet's rows and
// in the cache meanwhile, and every other writable action keeps them too).
export const runChunk = scrubbing(
  keepingAnswers(chunk.runChunk, (progress) => progress.finished || progress.halted !== null),
);
export const discardRun = scrubbing(keepingAnswers(start.discardRun));
export const freezeResults = scrubbing(keepingAnswers(menu.freezeResults));
export const showHelp = scrubbing(keepingAnswers(menu.showHelp));
export const showSetKey = scrubbing(keepingAnswers(menu.showSetKey));
export const showSettings = scrubbing(keepingAnswers(menu.showSettings));
export const showForget = scrubbing(keepingAnswers(menu.showForget));
export const showSidebar = scrubbing(keepingAnswers(menu.showSidebar));
export const describeSelection = scrubbing(keepingAnswers(sidebar.describeSelection));
// The sidebar's state reports how many answers are not kept yet: it does not keep them itself
// (opening the sidebar from the menu did, and "Keep them" does).
export const getSidebarState = scrubbing(sidebar.getSidebarState);
export const getAnswersInfo = scrubbing(sidebar.answersInfo);
// The key being saved is not in the stored settings yet (or is refused): scrub it too.
export const saveSettings = scrubbing(keepingAnswers(sidebar.saveSettings), (change) => secretIn(change));
export const freezeAllResults = scrubbing(keepingAnswers(sidebar.freezeAllResults));
// keepAnswers keeps them itself, and says how many.
export const keepAnswers = scrubbing(sidebar.keepAnswers);
// The free key check: the sidebar calls it right after saving a key.
export const checkKey = scrubbing(keepingAnswers(checkKeyOf));
// The allowance: what this user's key spent here against their limits, and changing them.
export const getAllowance = scrubbing(allowance.allowanceInfo);
export const saveAllowance = scrubbing(keepingAnswers(allowance.saveAllowance));
// "Keep this range enriched": the hourly trigger's handler (as the user who turned it on), and the
// sidebar's switch and history.
export const runAutomation = scrubbing(keepingAnswers(runAutomationOf));
export const turnOnAutomation = scrubbing(keepingAnswers(automation.turnOnAutomation));
export const turnOffAutomation = scrubbing(keepingAnswers(() => automation.turnOffAutomation('off')));
export const getAutomation = scrubbing(automation.automationState);
// Where the selected cell's answer came from (read only); undo the last sidebar run (free).
export const describeProvenance = scrubbing(provenanceOfSelection);
export const undoLastRun = scrubbing(keepingAnswers(undoLastRunOf));
export const getUndo = scrubbing(undoInfo);
// Forget a person (issue 38): the sidebar's section. Removing what is kept on them, then (the user's
// choice) clearing the add-on's cells that show them. Neither sends anything.
export const forgetPerson = scrubbing(keepingAnswers(forget.forgetPerson));
export const clearForgottenCells = scrubbing(keepingAnswers(forget.clearForgottenCells));

/**
 * A key in a settings change that could be saved. A key that core's check refuses is never stored
 * or sent, and its refusal does not quote it; scrubbing the words of "key with spaces" would only
 * garble the message.
 */
function secretIn(change: unknown): string[] {
  const key = (change as { apiKey?: unknown } | null)?.apiKey;
  if (typeof key !== 'string' || key.trim() === '') return [];
  return checkApiKey(key.trim()) === undefined ? [key.trim()] : [];
}
