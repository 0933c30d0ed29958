// The cells of the user's sheets that hold what the add-on bought about a forgotten person, which
// Forget a person offers (never forces) to clear. A row holds the person when core's matcher finds
// them in its values (their input, or an answer naming them). In such a row the add-on's cells are:
// - a run's or the automation's results: the Status cell carrying a provenance note ("Enrich: ...")
//   and the output columns beside it, as far as the block's header row names the operation's
//   columns; a row frozen from a formula carries the note on its first cell and is found the same way
//   when its formula had a header row. Without a header the add-on cannot tell how far its values
//   go: such cells are named, not cleared;
// - an Enrich formula whose results cover the row: it is entered again (cleared, flushed, written
//   back, as allowance/reenter.ts does), so that Sheets recalculates it and the row says that the
//   person was forgotten, with nothing bought; its other rows come back from the kept answers, free.
import { findOperation, type IdentityMatcher, outputColumns } from '@enrich/core/universal';
import { activeSpreadsheet } from '../active-spreadsheet.js';
import { PRIVATE_SHEET_PREFIX } from '../answers/hidden-sheet.js';
import { rangeA1 } from '../cells/a1.js';
import { areaOf, parseCall } from '../formulas/formula-text.js';
import { STATUS_COLUMN } from '../messages.js';
import { NOTE_PREFIX } from '../provenance/note.js';

export interface PersonCells {
  /** Result cells the add-on wrote in rows holding the person ("Sheet1!D5:N5"). */
  readonly cells: string[];
  /** Enrich formulas whose results cover such a row ("Sheet1!B2"). */
  readonly formulas: string[];
  /** Provenance-noted cells whose extent has no header to tell: named, never cleared. */
  readonly unsure: string[];
}

/** Where the add-on's cells hold the person; with `clear`, clears those cells and re-enters those formulas. */
export function personCells(matcher: IdentityMatcher, clear = false): PersonCells {
  const found: PersonCells = { cells: [], formulas: [], unsure: [] };
  for (const sheet of activeSpreadsheet().getSheets()) {
    const name = sheet.getName();
    if (name.startsWith(PRIVATE_SHEET_PREFIX)) continue;
    const data = sheet.getDataRange();
    const values = data.getValues();
    const rows = values.flatMap((line, r) => (matcher.find(line.join('\t')) ? [r] : []));
    if (rows.length === 0) continue;
    const notes = data.getNotes();
    const formulas = data.getFormulas();
    const a1 = (r: number, c: number, width = 1) => `${name}!${rangeA1(r + 1, c + 1, 1, width)}`;
    for (const r of rows) {
      (notes[r] ?? []).forEach((note, c) => {
        if (!String(note).startsWith(NOTE_PREFIX)) return;
        const width = blockWidth(values, r, c, String(note));
        if (width === 0) {
          found.unsure.push(a1(r, c));
          return;
        }
        found.cells.push(a1(r, c, width));
        if (clear)
          sheet
            .getRange(r + 1, c + 1, 1, width)
            .clearContent()
            .clearNote();
      });
    }
    formulas.forEach((line, r) => {
      line.forEach((formula, c) => {
        const call = formula ? parseCall(formula) : undefined;
        const area = call && areaOf(call, sheet);
        if (!area || !rows.some((row) => row >= r && row < r + area.rows)) return;
        found.formulas.push(a1(r, c));
        if (!clear) return;
        const cell = sheet.getRange(r + 1, c + 1);
        cell.setValue('');
        SpreadsheetApp.flush();
        cell.setFormula(formula);
      });
    });
  }
  return found;
}

/**
 * How many cells from column `c` the block of row `r` spans, from its header row (the nearest row
 * above whose cell in that column is "Status" or one of the operation's columns): the header's
 * Status and the operation's columns that follow it. 0 when there is no such header.
 */
function blockWidth(values: readonly unknown[][], r: number, c: number, note: string): number {
  const op = findOperation(note.slice(NOTE_PREFIX.length, note.indexOf(',')));
  if (!op) return 0;
  const names = new Set<unknown>(outputColumns(op));
  for (let h = r - 1; h >= 0; h--) {
    const header = values[h] ?? [];
    if (header[c] !== STATUS_COLUMN && !names.has(header[c])) continue;
    let width = 1;
    while (names.has(header[c + width])) width++;
    return width;
  }
  return 0;
}
