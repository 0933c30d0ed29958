// The trigger's handler: one hourly run of "Keep this range enriched", as the user who turned it on.
// Apps Script tells nobody when a trigger fails or is stopped, so the run keeps its own record
// (record.ts): it marks itself started before working and ended after, so that a run Apps Script
// stopped (its 6 minutes, or the day's trigger runtime) is found and recorded by the next one; it
// counts the trigger time it uses and does not start when a whole run would pass the day's 90
// minutes (consumer accounts; Workspace allows 6 hours, and other scripts of the same user share
// it: a run stopped anyway is recorded as such); and it turns itself off, saying why, when the key
// is missing or refused or the range's sheet is gone. The allowance stops a run, not the automation:
// it goes on the next day or month, or as soon as the allowance is raised.
import { checkApiKey } from '@enrich/core/universal';
import { activeSpreadsheet } from '../active-spreadsheet.js';
import { runnerGate } from '../allowance/runner.js';
import { EXECUTION_LIMIT_MS } from '../execution-time.js';
import { currentScrubber } from '../key/scrub.js';
import { asCoreSettings, userSettings } from '../key/settings.js';
import { SIDEBAR_KEY_REFUSED } from '../messages.js';
import { spreadsheetId } from '../run/resolve.js';
import { enrichEmptyRows, type RunResult } from './enrich.js';
import { type History, loadConfig, loadHistory, NO_DOCUMENT, record, saveHistory } from './record.js';
import { HANDLER, turnOffAutomation } from './switch.js';

/** Trigger runtime a day for a consumer account (Apps Script's quota). */
export const DAILY_TRIGGER_MS = 90 * 60_000;

export function runAutomation(event?: unknown): void {
  const started = Date.now();
  // Whether Apps Script runs an add-on's time-driven trigger in the document it was created in is
  // not documented (README, "Platform facts"). Without one, nothing here can work (no spreadsheet,
  // no document cache, properties or lock): say so where the sidebar looks, and stop.
  if (SpreadsheetApp.getActiveSpreadsheet() === null) {
    PropertiesService.getUserProperties().setProperty(NO_DOCUMENT, String(started));
    return;
  }
  const id = spreadsheetId();
  const config = loadConfig(id);
  const uid = (event as { triggerUid?: unknown } | undefined)?.triggerUid;
  if (!config || (uid !== undefined && String(uid) !== config.triggerId)) {
    // A trigger left over from an automation turned off or replaced, in this document: it removes itself.
    for (const t of ScriptApp.getUserTriggers(activeSpreadsheet())) {
      if (t.getHandlerFunction() === HANDLER && (!config || t.getUniqueId() === String(uid)))
        ScriptApp.deleteTrigger(t);
    }
    return;
  }
  const history = loadHistory(id);
  if (history.open !== null) {
    record(history, { ...history.open, stop: 'killed' });
    history.usedMs += EXECUTION_LIMIT_MS;
    history.open = null;
  }
  if (history.usedMs + EXECUTION_LIMIT_MS > DAILY_TRIGGER_MS) {
    record(history, { at: started, rows: 0, spent: 0, stop: 'quota' });
    saveHistory(id, history);
    return;
  }
  const stored = userSettings();
  if (!stored.apiKey || checkApiKey(stored.apiKey)) {
    saveHistory(id, history);
    turnOffAutomation('key');
    return;
  }
  history.open = { at: started, rows: 0, spent: 0 };
  saveHistory(id, history);
  const result = attempt(() =>
    enrichEmptyRows(
      config,
      { settings: asCoreSettings(stored), answerDays: stored.answerDays },
      runnerGate(stored.apiKey as string),
      started,
      // After each batch, so that a run Apps Script stops is recorded with what it did.
      (rows, spent) => {
        history.open = { at: started, rows, spent };
        saveHistory(id, history);
      },
    ),
  );
  finish(id, history, started, result);
}

function attempt(work: () => RunResult): RunResult & { note?: string } {
  try {
    return work();
  } catch (error) {
    const message = (error as Error).message;
    if (message === SIDEBAR_KEY_REFUSED) return { rows: 0, spent: 0, stop: 'key' };
    if (/no longer exists/.test(message)) return { rows: 0, spent: 0, stop: 'range' };
    // Kept in the user's properties: never the key, should a message ever carry it.
    return { rows: 0, spent: 0, stop: 'error', note: currentScrubber()(message).slice(0, 200) };
  }
}

function finish(id: string, history: History, started: number, result: RunResult & { note?: string }): void {
  history.open = null;
  history.lastRun = started;
  history.usedMs += Date.now() - started;
  record(history, { at: started, ...result });
  saveHistory(id, history);
  if (result.stop === 'key' || result.stop === 'range') turnOffAutomation(result.stop);
}
