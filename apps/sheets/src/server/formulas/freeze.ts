// "Freeze results": replaces this add-on's formulas in the selection with the values they show, so
// that later recalculations (which the add-on cannot prevent) never ask, or pay, again. A formula's
// results spill beyond its own cell and vanish once the formula is gone, so the whole area it fills
// is read first and written back as values, as text where text was shown (leading zeros, and API
// values that look like formulas stay text).
import { activeSpreadsheet } from '../active-spreadsheet.js';
import { PRIVATE_SHEET_PREFIX } from '../answers/hidden-sheet.js';
import { type CellValue, TEXT_FORMAT, toCell } from '../cells/values.js';
import { formulaNotes } from '../provenance/formula-rows.js';
import { areaOf, parseCall } from './formula-text.js';

export interface FreezeReport {
  readonly formulas: number;
  readonly cells: number;
  /** Formulas left alone because they show an error or their area could not be worked out. */
  readonly skipped: number;
}

export function freezeSelection(): FreezeReport {
  const range = SpreadsheetApp.getActiveRange();
  if (!range) return { formulas: 0, cells: 0, skipped: 0 };
  return freezeRange(range);
}

/** Freeze results "in the whole spreadsheet": every sheet's used area but the hidden sheet of answers. */
export function freezeSpreadsheet(): FreezeReport {
  let total: FreezeReport = { formulas: 0, cells: 0, skipped: 0 };
  for (const sheet of activeSpreadsheet().getSheets()) {
    // The add-on's own sheets (answers, undo copies) are not the user's formulas.
    if (sheet.getName().startsWith(PRIVATE_SHEET_PREFIX)) continue;
    const report = freezeRange(sheet.getDataRange());
    total = {
      formulas: total.formulas + report.formulas,
      cells: total.cells + report.cells,
      skipped: total.skipped + report.skipped,
    };
  }
  return total;
}

function freezeRange(range: GoogleAppsScript.Spreadsheet.Range): FreezeReport {
  const sheet = range.getSheet();
  const formulas = range.getFormulas();
  const values = range.getValues();
  const areas: { row: number; column: number; rows: number; columns: number; formula: string }[] = [];
  let skipped = 0;
  formulas.forEach((line, r) => {
    line.forEach((formula, c) => {
      if (!formula) return;
      const call = parseCall(formula);
      if (!call) return;
      const shown = values[r]?.[c];
      const size =
        call && !(typeof shown === 'string' && shown.startsWith('#')) ? areaOf(call, sheet) : undefined;
      if (!size) {
        skipped++;
        return;
      }
      areas.push({ row: range.getRow() + r, column: range.getColumn() + c, ...size, formula });
    });
  });
  // Read every area before writing any, so that no write changes what another area shows; and where
  // each row's answer came from, which the values would no longer say (provenance notes).
  const notes = formulaNotes(sheet, areas);
  const snapshots = areas.map((area, i) => {
    const target = sheet.getRange(area.row, area.column, area.rows, area.columns);
    return { target, values: target.getValues(), formats: target.getNumberFormats(), notes: notes[i] };
  });
  let cells = 0;
  for (const { target, values: shown, formats, notes } of snapshots) {
    const out: CellValue[][] = shown.map((row) => row.map((v) => toCell(v as string | number | boolean)));
    const textFormats = formats.map((row, r) =>
      row.map((format, c) => (typeof shown[r]?.[c] === 'string' ? TEXT_FORMAT : format)),
    );
    target.setNumberFormats(textFormats);
    target.setValues(out);
    if (notes) target.offset(0, 0, notes.length, 1).setNotes(notes.map((n) => [n]));
    cells += out.length * (out[0]?.length ?? 0);
  }
  return { formulas: areas.length, cells, skipped };
}
