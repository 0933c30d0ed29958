// Undo the last sidebar run: its target cells go back to what they held before it started (values,
// formulas, formats and notes), without a request, and the answers stay kept, so running it again
// costs nothing. At Start, before anything is written, the run's whole target range is copied
// (Range.copyTo: everything a paste copies) into a hidden sheet of the add-on, at the same
// coordinates so that any formula there comes back unchanged; Undo copies it back and deletes that
// sheet. One undo per user and spreadsheet (the user properties say which copy is theirs): a new
// run replaces it. Cells typed into the target after the run are put back too: Undo restores the
// range as it was.
import { activeSpreadsheet } from '../active-spreadsheet.js';
import { PRIVATE_SHEET_PREFIX } from '../answers/hidden-sheet.js';
import { rangeA1 } from '../cells/a1.js';
import { dateText } from '../provenance/note.js';
import { deleteCheckpoint, loadCheckpoint } from './checkpoint.js';
import type { ResolvedRun } from './resolve.js';
import { spreadsheetId } from './resolve.js';

const PREFIX = 'enrich.undo.';

interface UndoRecord {
  readonly v: 1;
  readonly runId: string;
  readonly sheetId: number;
  readonly row: number;
  readonly column: number;
  readonly numRows: number;
  readonly numColumns: number;
  /** The hidden sheet holding the copy. */
  readonly copy: string;
  readonly at: number;
}

/** What the sidebar offers to undo. */
export interface UndoInfo {
  /** "Sheet1!D1:N601". */
  readonly range: string;
  /** When the run started, in words. */
  readonly at: string;
}

function load(): UndoRecord | null {
  const text = PropertiesService.getUserProperties().getProperty(PREFIX + spreadsheetId());
  if (!text) return null;
  try {
    const value = JSON.parse(text) as UndoRecord;
    return value.v === 1 ? value : null;
  } catch {
    return null;
  }
}

function sheetById(id: number): GoogleAppsScript.Spreadsheet.Sheet | undefined {
  return activeSpreadsheet()
    .getSheets()
    .find((s) => s.getSheetId() === id);
}

/**
 * Copies the run's target range as it is now, replacing this user's previous copy. Before any write.
 * Returns the property that records it, for the caller to save with the run's checkpoint (one
 * property write for both).
 */
export function keepForUndo(run: ResolvedRun, runId: string): Record<string, string> {
  const spreadsheet = activeSpreadsheet();
  const previous = load();
  const old = previous ? spreadsheet.getSheetByName(previous.copy) : null;
  if (old) spreadsheet.deleteSheet(old);
  // Inserting a sheet makes it the active one: put the user's selection back afterwards.
  const selection = spreadsheet.getActiveRange();
  const name = `${PRIVATE_SHEET_PREFIX}undo_${runId.slice(0, 8)}`;
  const copy = spreadsheet.insertSheet(name, spreadsheet.getSheets().length);
  copy.hideSheet();
  if (selection) selection.activate();
  const lastRow = run.sel.row + run.sel.numRows - 1;
  const lastColumn = run.targetColumn + run.width - 1;
  if (copy.getMaxRows() < lastRow) copy.insertRowsAfter(copy.getMaxRows(), lastRow - copy.getMaxRows());
  if (copy.getMaxColumns() < lastColumn) {
    copy.insertColumnsAfter(copy.getMaxColumns(), lastColumn - copy.getMaxColumns());
  }
  run.sheet
    .getRange(run.sel.row, run.targetColumn, run.sel.numRows, run.width)
    .copyTo(copy.getRange(run.sel.row, run.targetColumn));
  const record: UndoRecord = {
    v: 1,
    runId,
    sheetId: run.sel.sheetId,
    row: run.sel.row,
    column: run.targetColumn,
    numRows: run.sel.numRows,
    numColumns: run.width,
    copy: name,
    at: Date.now(),
  };
  return { [PREFIX + spreadsheetId()]: JSON.stringify(record) };
}

/** This user's last run that can be undone, if any. */
export function undoInfo(): UndoInfo | null {
  const record = load();
  if (!record) return null;
  const sheet = sheetById(record.sheetId);
  if (!sheet) return null;
  return {
    range: `${sheet.getName()}!${rangeA1(record.row, record.column, record.numRows, record.numColumns)}`,
    at: dateText(record.at),
  };
}

/**
 * Puts the last run's target cells back as they were before it, and forgets the run (an unfinished
 * one too: resuming it would write them again). Sends nothing; the answers stay kept.
 */
export function undoLastRun(): UndoInfo {
  const record = load();
  const info = undoInfo();
  if (!record || !info) throw new Error('There is no sidebar run of yours to undo in this spreadsheet.');
  const spreadsheet = activeSpreadsheet();
  const copy = spreadsheet.getSheetByName(record.copy);
  if (!copy) {
    throw new Error(
      `The copy of what ${info.range} held is gone (its hidden sheet was deleted); nothing was changed.`,
    );
  }
  const target = sheetById(record.sheetId) as GoogleAppsScript.Spreadsheet.Sheet;
  copy
    .getRange(record.row, record.column, record.numRows, record.numColumns)
    .copyTo(target.getRange(record.row, record.column));
  spreadsheet.deleteSheet(copy);
  const id = spreadsheetId();
  PropertiesService.getUserProperties().deleteProperty(PREFIX + id);
  if (loadCheckpoint(id)?.id === record.runId) deleteCheckpoint(id);
  return info;
}
