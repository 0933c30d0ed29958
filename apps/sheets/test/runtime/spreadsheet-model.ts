// An in-memory spreadsheet that behaves like Sheets where the add-on depends on it: a written
// string is parsed as if typed (formulas, numbers losing leading zeros, dates), unless it starts
// with an apostrophe or the cell is plain-text formatted; array results of formulas spill and
// vanish with their formula; every write and format change is counted per cell, so tests can
// prove what was (and was not) touched. A1 notation is in a1.ts, how typed text is read in
// typed-input.ts.
import { a1Of, type Box, parseA1 } from './a1.js';
import { parseInput, shiftRows, toGrid } from './typed-input.js';

export { a1Of, type Box, parseA1 } from './a1.js';
export { parseInput } from './typed-input.js';

export type Value = string | number | boolean | Date;

export interface Cell {
  value: Value;
  /** The formula as typed, for formula cells (the anchor of a spill). */
  formula?: string;
  /** The error shown by a formula cell (#ERROR!, #REF!), with its message. */
  error?: string;
  format?: string;
  /** Key of the formula cell whose array result this cell shows. */
  spilledFrom?: number;
  /** The cell's note (Insert > Note), as Range.setNote(s) and copyTo leave it. */
  note?: string;
  /** Value writes (setValue/setValues) by scripts. */
  writes: number;
  /** Any change by a script: value writes and format changes. */
  touches: number;
}

const MAX_COLUMNS = 18_278; // ZZZ

const key = (row: number, column: number) => row * 100_000 + column;
const rowOf = (k: number) => Math.floor(k / 100_000);
const columnOf = (k: number) => k % 100_000;

export class SheetModel {
  readonly cells = new Map<number, Cell>();
  hidden = false;
  constructor(
    readonly id: number,
    public name: string,
    public maxRows = 1000,
    public maxColumns = 26,
  ) {}

  cell(row: number, column: number): Cell | undefined {
    return this.cells.get(key(row, column));
  }

  ensure(row: number, column: number): Cell {
    let cell = this.cells.get(key(row, column));
    if (!cell) {
      cell = { value: '', writes: 0, touches: 0 };
      this.cells.set(key(row, column), cell);
    }
    return cell;
  }

  value(row: number, column: number): Value {
    return this.cell(row, column)?.value ?? '';
  }

  inBounds(box: Box): boolean {
    return (
      box.row >= 1 &&
      box.column >= 1 &&
      box.numRows >= 1 &&
      box.numColumns >= 1 &&
      box.row + box.numRows - 1 <= this.maxRows &&
      box.column + box.numColumns - 1 <= this.maxColumns
    );
  }

  lastRow(): number {
    let last = 0;
    for (const [k, cell] of this.cells) if (!isEmpty(cell)) last = Math.max(last, rowOf(k));
    return last;
  }

  lastColumn(): number {
    let last = 0;
    for (const [k, cell] of this.cells) if (!isEmpty(cell)) last = Math.max(last, columnOf(k));
    return last;
  }

  /** What a person typing does: the same parsing as a script's setValue, but not counted as a script write. */
  type(row: number, column: number, input: Value): void {
    this.put(row, column, input, false);
  }

  /** A script's setValues: parsed as typed input, counted. Returns nothing; spills are kept consistent. */
  write(box: Box, values: readonly (readonly Value[])[]): void {
    const overwrittenAnchors = new Set<number>();
    const written = new Set<number>();
    for (let r = 0; r < box.numRows; r++) {
      for (let c = 0; c < box.numColumns; c++) {
        const k = key(box.row + r, box.column + c);
        written.add(k);
        const cell = this.cells.get(k);
        if (cell?.formula) overwrittenAnchors.add(k);
      }
    }
    for (let r = 0; r < box.numRows; r++) {
      for (let c = 0; c < box.numColumns; c++) {
        const row = box.row + r;
        const column = box.column + c;
        const cell = this.cells.get(key(row, column));
        // Writing into another formula's spill area breaks that formula's array result.
        if (cell?.spilledFrom !== undefined && !overwrittenAnchors.has(cell.spilledFrom)) {
          this.breakSpill(cell.spilledFrom, written);
        }
        this.put(row, column, (values[r] as Value[])[c] as Value, true);
      }
    }
    for (const anchor of overwrittenAnchors) this.clearSpill(anchor, written);
  }

  setFormat(box: Box, format: (r: number, c: number) => string): void {
    for (let r = 0; r < box.numRows; r++) {
      for (let c = 0; c < box.numColumns; c++) {
        const cell = this.ensure(box.row + r, box.column + c);
        cell.format = format(r, c);
        cell.touches++;
      }
    }
  }

  /** A script's setNotes: an empty note removes the note; counted as a change of the cell. */
  setNotes(box: Box, note: (r: number, c: number) => string): void {
    for (let r = 0; r < box.numRows; r++) {
      for (let c = 0; c < box.numColumns; c++) {
        const cell = this.ensure(box.row + r, box.column + c);
        const text = note(r, c);
        if (text === '') delete cell.note;
        else cell.note = text;
        cell.touches++;
      }
    }
  }

  note(row: number, column: number): string {
    return this.cell(row, column)?.note ?? '';
  }

  /**
   * Range.copyTo as a script does it (paste all): values, formulas, formats and notes of `box` go to
   * the same-sized block of `to` at (row, column), replacing what was there. A cell showing another
   * formula's array result is pasted empty (the formula, where copied, fills it again). Formulas move
   * with their relative references in Sheets; this runtime only copies them to the same position
   * (another sheet), which is all the add-on does, and refuses the rest rather than guess.
   */
  copyTo(box: Box, to: SheetModel, row: number, column: number): void {
    const moved = row !== box.row || column !== box.column;
    const copies: { cell: Cell | undefined; r: number; c: number }[] = [];
    for (let r = 0; r < box.numRows; r++) {
      for (let c = 0; c < box.numColumns; c++) {
        const cell = this.cell(box.row + r, box.column + c);
        if (cell?.formula && moved)
          throw new Error('copyTo of a formula to another position is not modelled');
        copies.push({ cell: cell ? { ...cell } : undefined, r, c });
      }
    }
    for (const { cell, r, c } of copies) {
      const target = to.ensure(row + r, column + c);
      target.value = cell?.spilledFrom === undefined ? (cell?.value ?? '') : '';
      target.spilledFrom = undefined;
      target.error = cell?.error;
      if (cell?.formula) target.formula = cell.formula;
      else delete target.formula;
      if (cell?.format === undefined) delete target.format;
      else target.format = cell.format;
      if (cell?.note) target.note = cell.note;
      else delete target.note;
      target.writes++;
      target.touches++;
    }
  }

  private put(row: number, column: number, input: Value, byScript: boolean): void {
    const cell = this.ensure(row, column);
    const parsed = parseInput(input, cell.format);
    cell.value = parsed.value;
    cell.spilledFrom = undefined;
    cell.error = undefined;
    if (parsed.formula === undefined) delete cell.formula;
    else cell.formula = parsed.formula;
    if (byScript) {
      cell.writes++;
      cell.touches++;
    }
  }

  /** Places a formula's result (or error) at its anchor, spilling an array right and down. */
  placeResult(row: number, column: number, result: { value: unknown } | { error: string }): void {
    const anchorKey = key(row, column);
    const anchor = this.ensure(row, column);
    this.clearSpill(anchorKey, new Set());
    if ('error' in result) {
      anchor.value = '#ERROR!';
      anchor.error = result.error;
      return;
    }
    const grid = toGrid(result.value);
    if (typeof grid === 'string') {
      anchor.value = '#ERROR!';
      anchor.error = grid;
      return;
    }
    const width = grid[0]?.length ?? 0;
    if (row + grid.length - 1 > this.maxRows || column + width - 1 > this.maxColumns) {
      anchor.value = '#REF!';
      anchor.error = 'Array result was not expanded because it would run past the sheet.';
      return;
    }
    for (let r = 0; r < grid.length; r++) {
      for (let c = 0; c < width; c++) {
        if (r === 0 && c === 0) continue;
        const other = this.cell(row + r, column + c);
        if (other && !isEmpty(other) && other.spilledFrom !== anchorKey) {
          anchor.value = '#REF!';
          anchor.error = `Array result was not expanded because it would overwrite data in ${a1Of({ row: row + r, column: column + c, numRows: 1, numColumns: 1 })}.`;
          return;
        }
      }
    }
    anchor.error = undefined;
    grid.forEach((line, r) => {
      line.forEach((value, c) => {
        if (r === 0 && c === 0) {
          anchor.value = value;
          return;
        }
        const cell = this.ensure(row + r, column + c);
        cell.value = value;
        cell.spilledFrom = anchorKey;
      });
    });
  }

  formulaCells(): { row: number; column: number; formula: string }[] {
    const out: { row: number; column: number; formula: string }[] = [];
    for (const [k, cell] of this.cells) {
      if (cell.formula) out.push({ row: rowOf(k), column: columnOf(k), formula: cell.formula });
    }
    return out.sort((a, b) => a.row - b.row || a.column - b.column);
  }

  private clearSpill(anchor: number, keep: ReadonlySet<number>): void {
    for (const [k, cell] of this.cells) {
      if (cell.spilledFrom === anchor && !keep.has(k)) {
        cell.value = '';
        cell.spilledFrom = undefined;
      }
    }
  }

  private breakSpill(anchor: number, keep: ReadonlySet<number>): void {
    this.clearSpill(anchor, keep);
    const cell = this.cells.get(anchor);
    if (cell) {
      cell.value = '#REF!';
      cell.error = 'Array result was not expanded because it would overwrite data.';
    }
  }

  /**
   * A person inserting `count` rows above `before`: cells move down, and every A1 reference in this
   * sheet's formulas to a row at or below `before` moves with them (as Sheets rewrites them).
   */
  insertRowsBefore(before: number, count: number): void {
    const moved = [...this.cells.entries()].filter(([k]) => rowOf(k) >= before);
    for (const [k] of moved) this.cells.delete(k);
    for (const [k, cell] of moved) this.cells.set(key(rowOf(k) + count, columnOf(k)), cell);
    for (const cell of this.cells.values()) {
      if (cell.spilledFrom !== undefined && rowOf(cell.spilledFrom) >= before)
        cell.spilledFrom += count * 100_000;
      if (cell.formula) cell.formula = shiftRows(cell.formula, (row) => (row >= before ? row + count : row));
    }
    this.maxRows += count;
  }

  /**
   * A person sorting rows `first`..`last` (whole rows) by the value in `column`: each row moves as a
   * block, and relative references in a moved formula follow its row (=F(A5) moved to row 2 reads =F(A2)).
   * Spilled results in the block are cleared: their formulas recalculate.
   */
  sortRows(first: number, last: number, column: number, descending = false): void {
    const rows = Array.from({ length: last - first + 1 }, (_, i) => first + i);
    const order = [...rows].sort((a, b) => {
      const x = String(this.value(a, column));
      const y = String(this.value(b, column));
      return (x < y ? -1 : x > y ? 1 : a - b) * (descending ? -1 : 1);
    });
    const taken = new Map<number, [number, Cell][]>();
    for (const row of rows) {
      const line = [...this.cells.entries()].filter(([k]) => rowOf(k) === row);
      for (const [k] of line) this.cells.delete(k);
      taken.set(row, line);
    }
    order.forEach((from, i) => {
      const to = first + i;
      for (const [k, cell] of taken.get(from) ?? []) {
        if (cell.spilledFrom !== undefined) {
          cell.value = '';
          cell.spilledFrom = undefined;
        }
        if (cell.formula) cell.formula = shiftRows(cell.formula, (row) => row + (to - from));
        this.cells.set(key(to, columnOf(k)), cell);
      }
    });
  }

  insertColumnsAfter(after: number, count: number): void {
    if (this.maxColumns + count > MAX_COLUMNS) throw new Error('too many columns');
    const moved = [...this.cells.entries()].filter(([k]) => columnOf(k) > after);
    for (const [k] of moved) this.cells.delete(k);
    for (const [k, cell] of moved) this.cells.set(key(rowOf(k), columnOf(k) + count), cell);
    this.maxColumns += count;
  }
}

export function isEmpty(cell: Cell): boolean {
  return cell.value === '' && !cell.formula;
}

export class SpreadsheetModel {
  readonly sheets: SheetModel[] = [];
  private nextSheetId = 0;
  active: { sheetId: number; box: Box } | null = null;
  readonly toasts: string[] = [];

  constructor(
    readonly id: string,
    public name: string,
  ) {
    this.addSheet('Sheet1');
  }

  addSheet(name: string, maxRows = 1000, maxColumns = 26, index?: number): SheetModel {
    const sheet = new SheetModel(this.nextSheetId, name, maxRows, maxColumns);
    this.nextSheetId += 1_234_567; // sheet ids are not small indexes in Sheets
    this.sheets.splice(index ?? this.sheets.length, 0, sheet);
    return sheet;
  }

  sheet(name: string): SheetModel {
    const sheet = this.sheets.find((s) => s.name === name);
    if (!sheet) throw new Error(`no sheet ${name}`);
    return sheet;
  }

  removeSheet(sheet: SheetModel): void {
    if (this.sheets.length === 1) throw new Error('A spreadsheet keeps at least one sheet');
    this.sheets.splice(this.sheets.indexOf(sheet), 1);
    if (this.active?.sheetId === sheet.id) this.active = null;
  }

  sheetById(id: number): SheetModel | undefined {
    return this.sheets.find((s) => s.id === id);
  }

  select(sheetName: string, a1: string): void {
    const sheet = this.sheet(sheetName);
    this.active = { sheetId: sheet.id, box: parseA1(a1, sheet.maxRows) };
  }
}
