// A run request resolved against the sheet: where the run reads and writes (operation, selection,
// input mapping, output columns, target columns that never overlap the inputs), checked every time
// it is resolved, since the sheet may have changed between two calls of the sidebar; and the reads
// of the sheet that planning and chunks share.
import {
  type CleanInput,
  checkRule,
  chooseColumns,
  findOperation,
  type Operation,
  planRow,
  type RowPlan,
  rowInput,
} from '@enrich/core/universal';
import { activeSpreadsheet, activeSpreadsheetId } from '../active-spreadsheet.js';
import { columnLetter, rangeA1 } from '../cells/a1.js';
import { refuseForgotten } from '../privacy/forgotten.js';
import type { Checkpoint } from './checkpoint.js';
import type { RangeRef, RunRequest } from './types.js';

export interface ResolvedRun {
  readonly op: Operation;
  readonly sheet: GoogleAppsScript.Spreadsheet.Sheet;
  readonly sel: RangeRef;
  readonly mapping: Record<string, number>;
  readonly columns: string[];
  readonly targetColumn: number;
  /** Status plus the output columns. */
  readonly width: number;
}

export type PlannedRow = RowPlan & { input?: CleanInput };

export function resolveRun(request: RunRequest): ResolvedRun {
  if (request === null || typeof request !== 'object') throw new Error('No run was described');
  const op = findOperation(String(request.operation));
  if (!op) throw new Error(`Unknown operation ${String(request.operation)}`);
  const sel = request.selection;
  if (!sel || ![sel.sheetId, sel.row, sel.column, sel.numRows, sel.numColumns].every(Number.isInteger)) {
    throw new Error('Select the rows to work on, with their header row, and try again');
  }
  const sheet = findSheet(sel.sheetId);
  if (sel.numRows < 2) throw new Error('Select a header row and at least one row below it');
  const mapping = checkMapping(op, sel, request.mapping);
  const chosen = chooseColumns(op, request.columns ?? []);
  if (!chosen.ok) throw new Error(chosen.message);
  const width = 1 + chosen.columns.length;
  const targetColumn = request.targetColumn ?? sel.column + sel.numColumns;
  if (!Number.isInteger(targetColumn) || targetColumn < 1) throw new Error('The target column is not valid');
  if (targetColumn < sel.column + sel.numColumns && targetColumn + width > sel.column) {
    throw new Error(
      `Results in ${columnLetter(targetColumn)}:${columnLetter(targetColumn + width - 1)} would overwrite the input columns; choose a column right of the selection`,
    );
  }
  return { op, sheet, sel, mapping, columns: chosen.columns, targetColumn, width };
}

/** Input field → column offset, each inside the selection, each column feeding one field, rules met. */
function checkMapping(
  op: Operation,
  sel: RangeRef,
  requested: Readonly<Record<string, number>> | undefined,
): Record<string, number> {
  const mapping: Record<string, number> = {};
  const used = new Set<number>();
  for (const [name, offset] of Object.entries(requested ?? {})) {
    if (offset === null || offset === undefined || (offset as unknown) === '') continue;
    const field = op.inputs.find((f) => f.name === name);
    if (!field) throw new Error(`${op.title} has no input ${name}`);
    if (!Number.isInteger(offset) || offset < 0 || offset >= sel.numColumns) {
      throw new Error(`The column for ${name} is outside the selection`);
    }
    if (used.has(offset)) throw new Error('Each selected column can feed one input only');
    used.add(offset);
    mapping[name] = offset;
  }
  for (const rule of op.rules) {
    const broken = checkRule(rule, (f) => mapping[f] !== undefined);
    if (broken) throw new Error(`Choose input columns: ${broken}`);
  }
  return mapping;
}

export function resolveCheckpoint(checkpoint: Checkpoint): ResolvedRun {
  return resolveRun({
    selection: {
      sheetId: checkpoint.sheetId,
      row: checkpoint.row,
      column: checkpoint.column,
      numRows: checkpoint.numRows,
      numColumns: checkpoint.numColumns,
    },
    operation: checkpoint.operation,
    mapping: checkpoint.mapping,
    columns: checkpoint.columns,
    targetColumn: checkpoint.targetColumn,
  });
}

/** Plans of data rows [0, end) from the sheet as it is now. */
export function readPlans(run: ResolvedRun, end: number): PlannedRow[] {
  if (end <= 0) return [];
  const values = run.sheet.getRange(run.sel.row + 1, run.sel.column, end, run.sel.numColumns).getValues();
  const mapping = { fields: run.mapping, problem: undefined };
  // A forgotten person is refused here, before the cache and any request (privacy/forgotten.ts).
  return refuseForgotten(
    run.op,
    values.map((row) => planRow(run.op, rowInput(mapping, row))),
  );
}

/** Target cells (value or formula) in selection rows [from, to), 0 being the header row. */
export function countNonEmpty(run: ResolvedRun, from: number, to: number): number {
  if (to <= from) return 0;
  const width = Math.min(run.width, run.sheet.getMaxColumns() - run.targetColumn + 1);
  if (width <= 0) return 0;
  const range = run.sheet.getRange(run.sel.row + from, run.targetColumn, to - from, width);
  const values = range.getValues();
  const formulas = range.getFormulas();
  let count = 0;
  values.forEach((row, r) => {
    row.forEach((value, c) => {
      if (value !== '' || formulas[r]?.[c] !== '') count++;
    });
  });
  return count;
}

export function inputA1(run: ResolvedRun): string {
  return rangeA1(run.sel.row, run.sel.column, run.sel.numRows, run.sel.numColumns);
}

export function targetA1(run: ResolvedRun): string {
  return rangeA1(run.sel.row, run.targetColumn, run.sel.numRows, run.width);
}

function findSheet(sheetId: number): GoogleAppsScript.Spreadsheet.Sheet {
  const sheet = activeSpreadsheet()
    .getSheets()
    .find((s) => s.getSheetId() === sheetId);
  if (!sheet) throw new Error('The sheet of this run no longer exists');
  return sheet;
}

export function spreadsheetId(): string {
  return activeSpreadsheetId();
}
