// "Where did this answer come from?" for the selected cell, in the sidebar: the provenance note on
// its row (a sidebar run, the automation or Freeze results wrote it, on the Status cell or the
// first cell, left of the selected one), else, for a cell an Enrich formula fills, that formula's
// row looked up among the kept answers (formula-rows.ts).

import { rangeA1 } from '../cells/a1.js';
import { areaOf, parseCall } from '../formulas/formula-text.js';
import { formulaNotes, NO_KEPT_ANSWER } from './formula-rows.js';
import { NOTE_PREFIX } from './note.js';

export interface CellProvenance {
  /** The selected cell, "Sheet1!E5". */
  readonly cell: string;
  readonly text: string;
}

export function provenanceOfSelection(): CellProvenance {
  const range = SpreadsheetApp.getActiveRange();
  if (!range) return { cell: '', text: 'Select a cell first.' };
  const sheet = range.getSheet();
  const row = range.getRow();
  const column = range.getColumn();
  const cell = `${sheet.getName()}!${rangeA1(row, column, 1, 1)}`;
  const notes = sheet.getRange(row, 1, 1, column).getNotes()[0] ?? [];
  for (let c = column - 1; c >= 0; c--) {
    const note = String(notes[c] ?? '');
    if (note.startsWith(NOTE_PREFIX)) return { cell, text: note };
  }
  const text = fromFormula(sheet, row, column);
  return {
    cell,
    text:
      text ??
      'No Enrich answer here: the cell was not written by a run, the automation or an Enrich formula.',
  };
}

/** The note of the row of the nearest Enrich formula above or left whose results cover the cell. */
function fromFormula(
  sheet: GoogleAppsScript.Spreadsheet.Sheet,
  row: number,
  column: number,
): string | undefined {
  const formulas = sheet.getRange(1, 1, row, column).getFormulas();
  for (let r = row - 1; r >= 0; r--) {
    for (let c = column - 1; c >= 0; c--) {
      const formula = formulas[r]?.[c] ?? '';
      const call = formula ? parseCall(formula) : undefined;
      if (!call) continue;
      const area = areaOf(call, sheet);
      if (!area || row - 1 - r >= area.rows || column - 1 - c >= area.columns) continue;
      const [notes] = formulaNotes(sheet, [{ formula, rows: area.rows }]);
      return notes?.[row - 1 - r] || NO_KEPT_ANSWER;
    }
  }
  return undefined;
}
