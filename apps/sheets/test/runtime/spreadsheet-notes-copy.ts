// Range and sheet methods of SpreadsheetApp beyond values and formats (spreadsheet-app.ts): notes,
// copyTo, setFormula, growing a sheet and deleting one. Same rules: a custom function may read
// (getNote, getNotes) but not write; each call costs virtual time like any Spreadsheet call.
import { checkGrid } from './grid-check.js';
import type { Box, SheetModel, SpreadsheetModel } from './spreadsheet-model.js';

export interface CallCosts {
  /** A call that reads `cells` cells (and `chars` characters). */
  read(what: string, cells?: number, chars?: number): void;
  /** A call that writes `cells` cells (and `chars` characters). */
  write(what: string, cells?: number, chars?: number): void;
  fail(message: string): never;
}

/** The sheet model and box behind a Range object of this runtime. */
export interface RangeInternals {
  readonly sheet: SheetModel;
  readonly box: Box;
}

export const RANGE_INTERNALS = Symbol('range');

export function noteMethods(sheet: SheetModel, box: Box, costs: CallCosts) {
  const cells = box.numRows * box.numColumns;
  const grid = <T>(f: (row: number, column: number) => T): T[][] =>
    Array.from({ length: box.numRows }, (_, r) =>
      Array.from({ length: box.numColumns }, (_, c) => f(box.row + r, box.column + c)),
    );
  return {
    getNote: () => {
      costs.read('Range.getNote', 1);
      return sheet.note(box.row, box.column);
    },
    getNotes: () => {
      const notes = grid((r, c) => sheet.note(r, c));
      costs.read('Range.getNotes', cells, notes.flat().join('').length);
      return notes;
    },
    setNote: (note: unknown) => {
      costs.write('setNote', cells);
      sheet.setNotes(box, () => (note === null || note === undefined ? '' : String(note)));
    },
    setNotes: (notes: unknown) => {
      costs.write('setNotes', cells, Array.isArray(notes) ? notes.flat().join('').length : 0);
      const checked = checkGrid(box, notes, 'Range.setNotes', costs.fail);
      sheet.setNotes(box, (r, c) => String((checked[r] as unknown[])[c] ?? ''));
    },
    clearNote: () => {
      costs.write('clearNote', cells);
      sheet.setNotes(box, () => '');
    },
  };
}

/** copyTo(destination): everything of the range to the block at the destination's top-left cell. */
export function copyMethod(sheet: SheetModel, box: Box, costs: CallCosts) {
  return (destination: unknown, options?: unknown) => {
    const to = (destination as { [RANGE_INTERNALS]?: RangeInternals } | null)?.[RANGE_INTERNALS];
    if (!to) costs.fail('Range.copyTo takes a Range');
    if (options !== undefined) costs.fail('copyTo options are not modelled by this test runtime');
    const target = to as RangeInternals;
    const block = { ...box, row: target.box.row, column: target.box.column };
    if (!target.sheet.inBounds(block)) {
      costs.fail('The coordinates of the target range are outside the dimensions of the sheet.');
    }
    costs.write('copyTo', box.numRows * box.numColumns * 2);
    try {
      sheet.copyTo(box, target.sheet, target.box.row, target.box.column);
    } catch (error) {
      costs.fail((error as Error).message);
    }
  };
}

/** Sheet.insertRowsAfter: the grid grows (cells below move down, with the formulas' references). */
export function insertRowsAfter(sheet: SheetModel, costs: CallCosts) {
  return (after: number, count: number) => {
    costs.write('insertRowsAfter');
    if (!Number.isInteger(count) || count < 1) costs.fail('Invalid argument: howMany');
    sheet.insertRowsBefore(after + 1, count);
  };
}

/** Spreadsheet.deleteSheet(sheet). */
export function deleteSheet(model: SpreadsheetModel, costs: CallCosts, sheetOf: (s: unknown) => SheetModel) {
  return (target: unknown) => {
    costs.write('Spreadsheet.deleteSheet');
    const sheet = sheetOf(target);
    if (model.sheets.length === 1) costs.fail("You can't remove all the sheets in a document.");
    model.removeSheet(sheet);
  };
}
