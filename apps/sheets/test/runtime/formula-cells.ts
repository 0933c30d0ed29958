// The add-on's formulas in the spreadsheet model, as Sheets calls them when it recalculates: the
// function's name and its arguments' values (a single cell as its value, a range as rows of columns,
// quoted text, TRUE/FALSE, numbers, an argument left out as "").
import { parseA1, type SheetModel, type SpreadsheetModel } from './spreadsheet-model.js';
import { splitArgs } from './vm-helpers.js';

export interface FormulaCall {
  readonly sheet: SheetModel;
  readonly row: number;
  readonly column: number;
  readonly fn: string;
  /** The arguments' values, or why they could not be read (the cell then shows that error). */
  readonly args: unknown[] | { readonly error: string };
}

/** Every formula cell calling one of `functions` (the script's top-level functions), sheet by sheet. */
export function addOnFormulas(model: SpreadsheetModel, functions: readonly string[]): FormulaCall[] {
  const calls: FormulaCall[] = [];
  for (const sheet of model.sheets) {
    for (const { row, column, formula } of sheet.formulaCells()) {
      const call = /^=\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(([\s\S]*)\)\s*$/.exec(formula);
      const fn = (call?.[1] ?? '').toUpperCase();
      if (!call || !functions.includes(fn)) continue;
      let args: FormulaCall['args'];
      try {
        args = splitArgs(call[2] as string).map((arg) => argumentValue(model, sheet, arg));
      } catch (error) {
        args = { error: (error as Error).message };
      }
      calls.push({ sheet, row, column, fn, args });
    }
  }
  return calls;
}

function argumentValue(model: SpreadsheetModel, sheet: SheetModel, arg: string): unknown {
  if (arg === '') return ''; // an argument left out between commas: =AUTOAPPEND(A2,,,"FName")
  if (/^".*"$/s.test(arg)) return arg.slice(1, -1).replace(/""/g, '"');
  if (/^(TRUE|FALSE)$/i.test(arg)) return arg.toUpperCase() === 'TRUE';
  if (/^-?\d+(\.\d+)?$/.test(arg)) return Number(arg);
  const qualified = /^(?:'((?:[^']|'')+)'|([A-Za-z0-9_]+))!(.+)$/.exec(arg);
  const target = qualified ? model.sheet((qualified[1] ?? qualified[2] ?? '').replace(/''/g, "'")) : sheet;
  const box = parseA1(qualified ? (qualified[3] as string) : arg, target.maxRows);
  const grid = Array.from({ length: box.numRows }, (_, r) =>
    Array.from({ length: box.numColumns }, (_, c) => target.value(box.row + r, box.column + c)),
  );
  return box.numRows === 1 && box.numColumns === 1 ? grid[0]?.[0] : grid;
}
