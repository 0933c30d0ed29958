// What "Keep this range enriched" keeps, per user and spreadsheet, in the user properties of whoever
// turned it on (the trigger runs as that user, with that user's key; no other editor sees or
// changes it): the range, operation and mapping of the sidebar run it was turned on from, and the
// history of its runs (when, rows written, transactions spent, why it stopped), with the trigger
// time it used today, so that it stops before Apps Script's daily trigger runtime runs out.
import type { OperationId } from '@enrich/core/universal';
import { dateText } from '../provenance/note.js';

const CONFIG = 'enrich.auto.';
/** When an hourly run found itself outside any document (run.ts); per user, for every spreadsheet. */
export const NO_DOCUMENT = 'enrich.autoNoDocument';
const HISTORY = 'enrich.autolog.';
/** Runs kept in the history: about a day of busy hours, a few KB against the 9 KB a value may hold. */
const KEEP_RUNS = 20;

export interface AutomationConfig {
  readonly v: 1;
  /** The trigger that runs it; another trigger calling the handler is not this automation's. */
  readonly triggerId: string;
  readonly since: number;
  readonly operation: OperationId;
  readonly sheetId: number;
  /** The header row; the range runs from below it to the sheet's last row, whatever that is then. */
  readonly row: number;
  readonly column: number;
  readonly numColumns: number;
  readonly mapping: Readonly<Record<string, number>>;
  readonly columns: readonly string[];
  readonly targetColumn: number;
}

/** Why a run ended; each has its words in STOP_TEXT. */
export type Stop =
  | 'done'
  | 'day'
  | 'month'
  | 'time'
  | 'quota'
  | 'killed'
  | 'key'
  | 'range'
  | 'busy'
  | 'error'
  | 'on'
  | 'off';

export interface RunRecord {
  readonly at: number;
  readonly rows: number;
  readonly spent: number;
  readonly stop: Stop;
  /** What went wrong, for 'error'. */
  readonly note?: string;
}

export interface History {
  readonly v: 1;
  runs: RunRecord[];
  /** The UTC day `usedMs` counts. */
  day: string;
  /** Trigger time the runs used that day (ms). */
  usedMs: number;
  /**
   * A run that started and has not recorded its end yet (Apps Script stopped it, if the next run
   * finds it): when, and what it had written and spent by its last batch.
   */
  open: { at: number; rows: number; spent: number } | null;
  /** When the last run checked the range. */
  lastRun: number | null;
}

export const STOP_TEXT: Record<Stop, string> = {
  done: 'done',
  day: "stopped: today's allowance is spent; goes on tomorrow (UTC), or as soon as it is raised",
  month: "stopped: this month's allowance is spent; goes on next month, or as soon as it is raised",
  time: 'stopped after its 4 minutes; the rest goes on next hour',
  quota:
    "not run: today's trigger time is nearly used (Apps Script allows 90 minutes a day on consumer accounts); goes on tomorrow (UTC)",
  killed:
    "stopped by Apps Script before it ended (its 6 minutes, or the day's trigger time ran out); the next run goes on from there",
  key: 'turned off: your API key is missing or was refused; set it, then turn this on again',
  range: 'turned off: the sheet of this range no longer exists',
  busy: 'skipped: another run was writing to this spreadsheet; goes on next hour',
  error: 'stopped',
  on: 'turned on',
  off: 'turned off',
};

export function today(now = Date.now()): string {
  return new Date(now).toISOString().slice(0, 10);
}

function read<T>(key: string): T | null {
  const text = PropertiesService.getUserProperties().getProperty(key);
  if (!text) return null;
  try {
    const value = JSON.parse(text) as T & { v?: unknown };
    return value.v === 1 ? value : null;
  } catch {
    return null;
  }
}

export function loadConfig(spreadsheetId: string): AutomationConfig | null {
  return read<AutomationConfig>(CONFIG + spreadsheetId);
}

export function saveConfig(spreadsheetId: string, config: AutomationConfig | null): void {
  const props = PropertiesService.getUserProperties();
  if (config) props.setProperty(CONFIG + spreadsheetId, JSON.stringify(config));
  else props.deleteProperty(CONFIG + spreadsheetId);
}

/** The history, with today's trigger time starting from 0 on a new UTC day. */
export function loadHistory(spreadsheetId: string): History {
  const history = read<History>(HISTORY + spreadsheetId) ?? {
    v: 1,
    runs: [],
    day: today(),
    usedMs: 0,
    open: null,
    lastRun: null,
  };
  if (history.day !== today()) {
    history.day = today();
    history.usedMs = 0;
  }
  return history;
}

export function saveHistory(spreadsheetId: string, history: History): void {
  PropertiesService.getUserProperties().setProperty(HISTORY + spreadsheetId, JSON.stringify(history));
}

/**
 * Adds a run to the history, newest first. A run that did nothing is not recorded, nor the same
 * stop again on the same day (an allowance spent at 9 would otherwise fill the history by noon).
 */
export function record(history: History, run: RunRecord): void {
  if (run.stop === 'done' && run.rows === 0) return;
  const last = history.runs[0];
  if (last && run.rows === 0 && last.stop === run.stop && today(last.at) === today(run.at)) {
    return;
  }
  history.runs = [run, ...history.runs].slice(0, KEEP_RUNS);
}

/** A run as the sidebar lists it: "2026-11-22 10:00 UTC · 50 rows · 47 spent · done". */
export function runText(run: RunRecord): string {
  const what = run.stop === 'error' && run.note ? `stopped: ${run.note}` : STOP_TEXT[run.stop];
  if (run.stop === 'on' || run.stop === 'off') return `${dateText(run.at)} · ${what}`;
  return `${dateText(run.at)} · ${run.rows} rows · ${run.spent} spent · ${what}`;
}
