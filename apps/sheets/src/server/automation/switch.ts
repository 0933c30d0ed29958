// "Keep this range enriched", on and off. Turning it on (from the sidebar, by a user, for the range,
// operation, mapping and output columns of the run described there) creates one installable
// time-driven trigger, hourly (the most an add-on may), owned by that user: Apps Script runs it as
// them, with their key, whoever else edits the spreadsheet, and no one else can see or delete it.
// Turning it off deletes it. The trigger's handler is run.ts.
import { checkApiKey, findOperation } from '@enrich/core/universal';
import { activeSpreadsheet } from '../active-spreadsheet.js';
import { columnLetter, rangeA1 } from '../cells/a1.js';
import { noKeyMessageForSidebar, userSettings } from '../key/settings.js';
import { dateText } from '../provenance/note.js';
import { resolveRun, spreadsheetId } from '../run/resolve.js';
import type { RunRequest } from '../run/types.js';
import {
  loadConfig,
  loadHistory,
  NO_DOCUMENT,
  record,
  runText,
  type Stop,
  saveConfig,
  saveHistory,
} from './record.js';

/** The top-level function the trigger calls (index.ts exports it; the build makes it global). */
export const HANDLER = 'runAutomation';

export interface AutomationState {
  readonly on: boolean;
  /** What is kept enriched, in words: "Phone Lookup of Sheet1!A2:B (below row 1), results in D:N". */
  readonly what: string;
  /** The runs, newest first, in words. */
  readonly history: readonly string[];
  /** When the last run looked at the range, in words; '' before any. */
  readonly lastRun: string;
  /** Set when an hourly run found no document to work in: why nothing happens. */
  readonly problem: string;
}

/** This user's triggers of the handler in this spreadsheet. */
function ownTriggers(): GoogleAppsScript.Script.Trigger[] {
  return ScriptApp.getUserTriggers(activeSpreadsheet()).filter((t) => t.getHandlerFunction() === HANDLER);
}

export function turnOnAutomation(request: RunRequest): AutomationState {
  const run = resolveRun(request);
  const settings = userSettings();
  if (!settings.apiKey) throw new Error(noKeyMessageForSidebar());
  const keyProblem = checkApiKey(settings.apiKey);
  if (keyProblem) throw new Error(keyProblem);
  const id = spreadsheetId();
  // One time-driven trigger per user per document for an add-on: a new range replaces the old one.
  for (const trigger of ownTriggers()) ScriptApp.deleteTrigger(trigger);
  const trigger = ScriptApp.newTrigger(HANDLER).timeBased().everyHours(1).create();
  saveConfig(id, {
    v: 1,
    triggerId: trigger.getUniqueId(),
    since: Date.now(),
    operation: run.op.id,
    sheetId: run.sel.sheetId,
    row: run.sel.row,
    column: run.sel.column,
    numColumns: run.sel.numColumns,
    mapping: run.mapping,
    columns: run.columns,
    targetColumn: run.targetColumn,
  });
  note(id, 'on');
  return automationState();
}

/** Turns it off: the trigger deleted, the range forgotten, the history kept with why. */
export function turnOffAutomation(reason: Stop = 'off'): AutomationState {
  for (const trigger of ownTriggers()) ScriptApp.deleteTrigger(trigger);
  const id = spreadsheetId();
  saveConfig(id, null);
  note(id, reason);
  return automationState();
}

function note(id: string, stop: Stop): void {
  const history = loadHistory(id);
  record(history, { at: Date.now(), rows: 0, spent: 0, stop });
  saveHistory(id, history);
}

export function automationState(): AutomationState {
  const id = spreadsheetId();
  const config = loadConfig(id);
  const history = loadHistory(id);
  const lost = Number(PropertiesService.getUserProperties().getProperty(NO_DOCUMENT) ?? 0);
  const problem =
    config && lost > config.since
      ? `Apps Script ran the hourly trigger outside this spreadsheet (${dateText(lost)}), so it could not ` +
        'enrich anything. Use Start above for new rows meanwhile.'
      : '';
  const what = config
    ? `${findOperation(config.operation)?.title ?? config.operation} on the rows below ` +
      `${rangeA1(config.row, config.column, 1, config.numColumns)}, results from column ${columnLetter(config.targetColumn)}`
    : '';
  return {
    on: config !== null,
    what,
    history: history.runs.slice(0, 10).map(runText),
    lastRun: history.lastRun === null ? '' : dateText(history.lastRun),
    problem,
  };
}
