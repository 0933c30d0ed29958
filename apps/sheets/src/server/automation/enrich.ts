// One run of "Keep this range enriched": the rows of the range (from below its header row to the
// sheet's last row, so that new rows are in it) whose target cells are all empty, and only those,
// are enriched as a sidebar chunk does it: kept answers first (free), the rest bought within the
// runner's allowance, rows written with their provenance notes. In batches, each under the document
// lock and each checking its target cells again just before writing, so that a cell someone typed
// into meanwhile is never overwritten.
import {
  type Outcome,
  type PaceState,
  type RowOutcomeKind,
  rowStatusText,
  type Settings,
} from '@enrich/core/universal';
import type { AllowanceGate } from '../allowance/ledger.js';
import { freshSince } from '../answers/freshness.js';
import { TEXT_FORMAT, toCells } from '../cells/values.js';
import { underDocumentLock } from '../document-lock.js';
import { currentScrubber } from '../key/scrub.js';
import { STATUS_COLUMN } from '../messages.js';
import { otherService, provenanceNote } from '../provenance/note.js';
import { fetchChunkAnswers } from '../run/chunk-answers.js';
import { type PlannedRow, type ResolvedRun, readPlans, resolveRun, spreadsheetId } from '../run/resolve.js';
import { rowForOutcome, statusRow } from '../run/rows.js';
import { addSpend, readSpend, spendProperty } from '../run/spend.js';
import type { AutomationConfig, Stop } from './record.js';

/** Rows a batch takes (one fetch budget of a minute at most, like a sidebar chunk). */
const BATCH_ROWS = 500;
/** No batch starts after this much of a run: a run stays far inside its 6 minutes. */
export const RUN_WORK_MS = 4 * 60_000;

export interface RunResult {
  readonly rows: number;
  readonly spent: number;
  readonly stop: Stop;
}

interface Todo {
  /** Data rows (0-based below the header) to enrich, in order. */
  readonly rows: number[];
  readonly plans: PlannedRow[];
  readonly headerEmpty: boolean;
}

/** The kept range as it is now: header row to the sheet's last row. Throws when its sheet is gone. */
export function resolveKept(config: AutomationConfig, lastRow: number): ResolvedRun {
  return resolveRun({
    selection: {
      sheetId: config.sheetId,
      row: config.row,
      column: config.column,
      numRows: Math.max(2, lastRow - config.row + 1),
      numColumns: config.numColumns,
    },
    operation: config.operation,
    mapping: config.mapping,
    columns: config.columns,
    targetColumn: config.targetColumn,
  });
}

/** Rows with input whose target cells are all empty (no value, no formula). */
function findTodo(run: ResolvedRun): Todo {
  const total = run.sel.numRows - 1;
  const plans = readPlans(run, total);
  const target = run.sheet.getRange(run.sel.row, run.targetColumn, run.sel.numRows, run.width);
  const values = target.getValues();
  const formulas = target.getFormulas();
  const empty = (r: number) =>
    (values[r] ?? []).every((v) => v === '') && (formulas[r] ?? []).every((f) => f === '');
  const rows: number[] = [];
  plans.forEach((plan, i) => {
    if (plan.kind !== 'empty' && empty(i + 1)) rows.push(i);
  });
  return { rows, plans, headerEmpty: empty(0) };
}

export function enrichEmptyRows(
  config: AutomationConfig,
  stored: { settings: Settings; answerDays: number },
  gate: AllowanceGate,
  started: number,
  progress: (rows: number, spent: number) => void,
): RunResult {
  const probe = resolveKept(config, config.row + 1);
  const lastRow = probe.sheet.getLastRow();
  if (lastRow <= config.row) return { rows: 0, spent: 0, stop: 'done' };
  const run: ResolvedRun = { ...probe, sel: { ...probe.sel, numRows: lastRow - config.row + 1 } };
  const todo = findTodo(run);
  if (todo.rows.length === 0) return { rows: 0, spent: 0, stop: 'done' };
  if (todo.headerEmpty) {
    const header = run.sheet.getRange(run.sel.row, run.targetColumn, 1, run.width);
    header.setNumberFormat(TEXT_FORMAT);
    header.setValues([toCells([STATUS_COLUMN, ...run.columns])]);
  }
  let rows = 0;
  let spent = 0;
  let pace: PaceState | undefined;
  for (let from = 0; from < todo.rows.length; from += BATCH_ROWS) {
    if (Date.now() - started > RUN_WORK_MS) return { rows, spent, stop: 'time' };
    const batch = todo.rows.slice(from, from + BATCH_ROWS);
    const done = underDocumentLock(10_000, () =>
      enrichBatch(run, todo.plans, batch, { ...stored, started }, gate, pace),
    );
    if (!done) return { rows, spent, stop: 'busy' };
    rows += done.value.rows;
    spent += done.value.spent;
    pace = done.value.pace;
    progress(rows, spent);
    if (done.value.held) return { rows, spent, stop: done.value.held === 'month' ? 'month' : 'day' };
  }
  return { rows, spent, stop: 'done' };
}

interface BatchResult {
  readonly rows: number;
  readonly spent: number;
  readonly pace: PaceState | undefined;
  readonly held?: 'day' | 'month' | 'busy';
}

function enrichBatch(
  run: ResolvedRun,
  all: readonly PlannedRow[],
  batch: readonly number[],
  stored: { settings: Settings; answerDays: number; started: number },
  gate: AllowanceGate,
  pace: PaceState | undefined,
): BatchResult {
  const plans = batch.map((i) => all[i] as PlannedRow);
  const firstRow = new Map<string, number>();
  plans.forEach((plan, j) => {
    if (plan.kind === 'request' && !firstRow.has(plan.key)) firstRow.set(plan.key, j);
  });
  const answers = fetchChunkAnswers(
    run,
    stored.settings,
    { plans, firstRow, start: 0, end: plans.length },
    {
      started: Date.now(),
      pace,
      freshSince: freshSince(stored.answerDays),
      allowance: Number.POSITIVE_INFINITY,
      gate,
    },
  );
  if (answers.spent > 0) {
    const id = spreadsheetId();
    PropertiesService.getUserProperties().setProperties(
      spendProperty(id, addSpend(readSpend(id), run.op, stored.settings, answers.spent)),
    );
  }
  // The rows to write now: invalid ones, and those whose answer is here (not held, not unfinished).
  const service = otherService(run.op, stored.settings);
  const scrub = currentScrubber();
  const ready = new Map<number, { cells: ReturnType<typeof toCells>; note: string }>();
  plans.forEach((plan, j) => {
    const row = batch[j] as number;
    if (plan.kind === 'invalid') {
      ready.set(row, {
        cells: toCells(statusRow(run.width, rowStatusText('invalid', plan.message)), scrub),
        note: '',
      });
      return;
    }
    if (plan.kind !== 'request') return;
    const outcome = answers.byKey.get(plan.key) as Outcome | undefined;
    if (!outcome) return;
    const written = rowForOutcome(run, outcome);
    const origin = answers.origins.get(plan.key);
    const note = origin && isAnswer(written.kind) ? provenanceNote(run.op, origin, service) : '';
    ready.set(row, { cells: toCells(written.cells, scrub), note });
  });
  const rows = writeRows(run, ready);
  return { rows, spent: answers.spent, pace: answers.pace, held: answers.held };
}

function isAnswer(kind: RowOutcomeKind): boolean {
  return kind === 'ok' || kind === 'no-match' || kind === 'unreadable';
}

/**
 * Writes the rows in runs of consecutive sheet rows (one setValues and one setNotes each), each run
 * only if its target cells are still all empty. Returns the rows written.
 */
function writeRows(
  run: ResolvedRun,
  ready: ReadonlyMap<number, { cells: ReturnType<typeof toCells>; note: string }>,
): number {
  const order = [...ready.keys()].sort((a, b) => a - b);
  let written = 0;
  let i = 0;
  while (i < order.length) {
    let j = i;
    while (j + 1 < order.length && (order[j + 1] as number) === (order[j] as number) + 1) j++;
    const first = order[i] as number;
    const block = order.slice(i, j + 1);
    const range = run.sheet.getRange(run.sel.row + 1 + first, run.targetColumn, block.length, run.width);
    const now = range.getValues();
    if (now.every((line) => line.every((v) => v === ''))) {
      range.setNumberFormat(TEXT_FORMAT);
      range.setValues(block.map((r) => ready.get(r)?.cells ?? []));
      range.offset(0, 0, block.length, 1).setNotes(block.map((r) => [ready.get(r)?.note ?? '']));
      written += block.length;
    }
    i = j + 1;
  }
  return written;
}
