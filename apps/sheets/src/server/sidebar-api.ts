// What the sidebar asks the server for, besides running: its starting state, the selection, and
// settings. Everything returned crosses google.script.run, so it is plain data (no Date, no
// undefined in arrays), and it never holds the API key.
import { mapColumns, OPERATIONS, type OperationId, outputColumns } from '@enrich/core/universal';
import { type AllowanceInfo, allowanceInfo } from './allowance/runner.js';
import { countUnkept, keepCachedAnswers } from './answers/keep.js';
import { type AutomationState, automationState } from './automation/switch.js';
import { columnLetter, rangeA1 } from './cells/a1.js';
import { type FreezeReport, freezeSpreadsheet } from './formulas/freeze.js';
import { type PublicSettings, publicSettings, saveUserSettings, userSettings } from './key/settings.js';
import { spreadsheetId } from './run/resolve.js';
import { readSpend, type SpendInfo, spendInfo } from './run/spend.js';
import { unfinishedRun } from './run/start.js';
import type { RangeRef, RunProgress } from './run/types.js';
import { type UndoInfo, undoInfo } from './run/undo.js';

export interface OperationInfo {
  readonly id: OperationId;
  readonly title: string;
  readonly category: string;
  readonly inputs: readonly { readonly name: string; readonly label: string }[];
  readonly columns: readonly string[];
  readonly defaultColumns: readonly string[];
}

export interface SelectionInfo extends RangeRef {
  readonly sheetName: string;
  readonly a1: string;
  readonly headers: readonly string[];
  /** Per operation: input field → column offset, matched from the header row by name, and what is missing. */
  readonly suggestions: Readonly<
    Record<string, { fields: Readonly<Record<string, number>>; problem: string | null }>
  >;
  readonly defaultTarget: { readonly column: number; readonly letter: string };
}

/** Formula answers: how many are still only in the 6-hour cache, and how long this user reuses answers. */
export interface AnswersInfo {
  readonly unkept: number;
  /** This user's "Reuse kept answers for" (formulas follow the spreadsheet owner's). */
  readonly days: number;
}

export interface SidebarState {
  readonly settings: PublicSettings;
  readonly answers: AnswersInfo;
  readonly operations: readonly OperationInfo[];
  readonly selection: SelectionInfo | null;
  readonly run: RunProgress | null;
  /** What this user's sidebar runs spent in this spreadsheet this month. */
  readonly spend: SpendInfo;
  /** This user's allowance in this spreadsheet, and what their key spent of it. */
  readonly allowance: AllowanceInfo;
  /** This user's last run that can be undone. */
  readonly undo: UndoInfo | null;
  /** "Keep this range enriched": on or off, and its runs. */
  readonly automation: AutomationState;
}

export function getSidebarState(): SidebarState {
  return {
    settings: publicSettings(userSettings()),
    answers: answersInfo(),
    operations: OPERATIONS.map((op) => ({
      id: op.id,
      title: op.title,
      category: op.category,
      inputs: op.inputs.map((f) => ({ name: f.name, label: f.label })),
      columns: [...outputColumns(op)],
      defaultColumns: [...op.defaultColumns],
    })),
    selection: describeSelection(),
    run: unfinishedRun(),
    spend: spendInfo(readSpend(spreadsheetId())),
    allowance: allowanceInfo(),
    undo: undoInfo(),
    automation: automationState(),
  };
}

export function describeSelection(): SelectionInfo | null {
  const range = SpreadsheetApp.getActiveRange();
  if (!range) return null;
  const sheet = range.getSheet();
  const headers =
    range
      .offset(0, 0, 1, range.getNumColumns())
      .getDisplayValues()[0]
      ?.map((h) => String(h)) ?? [];
  const suggestions: Record<string, { fields: Record<string, number>; problem: string | null }> = {};
  for (const op of OPERATIONS) {
    const mapping = mapColumns(op, headers);
    suggestions[op.id] = { fields: { ...mapping.fields }, problem: mapping.problem ?? null };
  }
  const target = range.getColumn() + range.getNumColumns();
  return {
    sheetId: sheet.getSheetId(),
    sheetName: sheet.getName(),
    row: range.getRow(),
    column: range.getColumn(),
    numRows: range.getNumRows(),
    numColumns: range.getNumColumns(),
    a1: rangeA1(range.getRow(), range.getColumn(), range.getNumRows(), range.getNumColumns()),
    headers,
    suggestions,
    defaultTarget: { column: target, letter: columnLetter(target) },
  };
}

/**
 * The one way in for settings, from the sidebar and from tests: `{apiKey?, baseUrl?, baseUrlV3?,
 * answerDays?}`, all the user's own (key/settings.ts): how long answers are reused is decided by
 * whoever's key pays for them.
 */
export function saveSettings(settings: unknown): PublicSettings {
  return saveUserSettings(settings);
}

export function answersInfo(): AnswersInfo {
  return { unkept: countUnkept(), days: userSettings().answerDays };
}

/** "Keep them": moves the formula answers still only in the cache into the hidden sheet; no transaction. */
export function keepAnswers(): AnswersInfo & { readonly kept: number } {
  const report = keepCachedAnswers();
  if (report.skipped === 'busy') {
    throw new Error('Another action is using this spreadsheet; try again in a few seconds.');
  }
  return { kept: report.kept, ...answersInfo() };
}

/** Freeze results in the whole spreadsheet: every add-on formula on every sheet becomes its values. */
export function freezeAllResults(): FreezeReport {
  return freezeSpreadsheet();
}
