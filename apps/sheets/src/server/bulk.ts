// The sidebar's bulk run over a selection: plan (what it will cost), start (checkpoint), then chunks
// driven by the sidebar, each one server call well inside the 6-minute limit. Rows are done in
// order; a chunk writes a contiguous run of rows and then moves the checkpoint, so a stopped,
// failed or abandoned run resumes where it was and pays for nothing twice:
// - a request's first row is the only one that is sent; later rows with the same request copy the
//   first row's result from the sheet (which holds it, written in an earlier chunk);
// - answers are put in the document cache after every fetch round, so a chunk cut short between
//   fetching and writing finds them again.
// Input columns are never written, and target cells that are not empty are written only after the
// user confirmed it (checked again in every chunk, since the sheet may change meanwhile).
import {
  type CleanInput,
  checkRule,
  chooseColumns,
  findOperation,
  flattenRecord,
  type LeafValue,
  type Operation,
  type OperationId,
  type Outcome,
  operationUrl,
  planRow,
  type RowPlan,
  rowInput,
  type Settings,
} from '@enrich/core';
import { answerKey, documentCache, readAnswers, saveAnswers } from './answers.js';
import { type CellValue, fromCell, TEXT_FORMAT, toCells } from './cells.js';
import {
  type Checkpoint,
  deleteCheckpoint,
  emptyCounts,
  loadCheckpoint,
  type RunCounts,
  saveCheckpoint,
} from './checkpoint.js';
import { errorText, invalidText, NO_MATCH, STATUS_COLUMN, STATUS_OK } from './messages.js';
import { pendingRequests } from './pending.js';
import { MAX_PARALLEL, sendAll } from './send.js';
import { asCoreSettings, noKeyMessageForSidebar, userSettings } from './settings.js';
import { columnLetter, findSheet, rangeA1 } from './sheets.js';

/** Rows per chunk: a few seconds of work at realistic latency, far from the 6-minute limit. */
export const CHUNK_ROWS = 250;
/** No fetch round of a chunk starts after this; what is left goes to the next chunk. */
const CHUNK_FETCH_BUDGET_MS = 60_000;

export interface RangeRef {
  readonly sheetId: number;
  readonly row: number;
  readonly column: number;
  readonly numRows: number;
  readonly numColumns: number;
}

export interface RunRequest {
  readonly selection: RangeRef;
  readonly operation: string;
  /** Input field → column offset in the selection. */
  readonly mapping: Readonly<Record<string, number>>;
  /** Output columns (core's flat names); empty for the operation's defaults. */
  readonly columns: readonly string[];
  /** First target column (1-based); default: right after the selection. */
  readonly targetColumn?: number | null;
}

export interface RunPlan {
  readonly operation: OperationId;
  readonly rows: number;
  readonly empty: number;
  readonly invalid: number;
  readonly distinct: number;
  /** Distinct requests whose answers are in the document cache already. */
  readonly cached: number;
  /** What the run will spend at most: distinct valid requests not cached. */
  readonly transactions: number;
  /** Target cells that hold a value or a formula. */
  readonly nonEmpty: number;
  readonly inputA1: string;
  readonly targetA1: string;
  readonly columns: readonly string[];
}

export interface RunProgress {
  readonly runId: string;
  readonly operation: OperationId;
  readonly title: string;
  readonly sheetName: string;
  readonly inputA1: string;
  readonly targetA1: string;
  readonly total: number;
  readonly finished: boolean;
  readonly counts: RunCounts;
}

interface Resolved {
  readonly op: Operation;
  readonly sheet: GoogleAppsScript.Spreadsheet.Sheet;
  readonly sel: RangeRef;
  readonly mapping: Record<string, number>;
  readonly columns: string[];
  readonly targetColumn: number;
  /** Status plus the output columns. */
  readonly width: number;
}

export function planRun(request: RunRequest): RunPlan {
  const run = resolve(request);
  const total = run.sel.numRows - 1;
  const plans = readPlans(run, total);
  const distinct = new Map<string, CleanInput>();
  let empty = 0;
  let invalid = 0;
  for (const plan of plans) {
    if (plan.kind === 'empty') empty++;
    else if (plan.kind === 'invalid') invalid++;
    else if (plan.input && !distinct.has(plan.key)) distinct.set(plan.key, plan.input);
  }
  let cached = 0;
  const settings = asCoreSettings(userSettings());
  const target = operationUrl(run.op, settings);
  if (target.ok && distinct.size > 0) {
    const keys = [...distinct.keys()].map((k) => answerKey(target.url, k));
    cached = readAnswers(documentCache(), keys).size;
  }
  return {
    operation: run.op.id,
    rows: total,
    empty,
    invalid,
    distinct: distinct.size,
    cached,
    transactions: distinct.size - cached,
    nonEmpty: countNonEmpty(run, 0, run.sel.numRows),
    inputA1: inputA1(run),
    targetA1: targetA1(run),
    columns: run.columns,
  };
}

/** Starts a run (replacing this user's unfinished one in this spreadsheet) and returns its progress. */
export function startRun(request: RunRequest, confirmOverwrite: boolean): RunProgress {
  const run = resolve(request);
  const settings = userSettings();
  if (!settings.apiKey) throw new Error(noKeyMessageForSidebar());
  const nonEmpty = countNonEmpty(run, 0, run.sel.numRows);
  if (nonEmpty > 0 && confirmOverwrite !== true) {
    throw new Error(
      `${nonEmpty} target cell${nonEmpty === 1 ? ' is' : 's are'} not empty in ${targetA1(run)}; confirm to overwrite them, or choose another target column.`,
    );
  }
  const lastNeeded = run.targetColumn + run.width - 1;
  const maxColumns = run.sheet.getMaxColumns();
  if (lastNeeded > maxColumns) run.sheet.insertColumnsAfter(maxColumns, lastNeeded - maxColumns);
  const checkpoint: Checkpoint = {
    v: 1,
    id: Utilities.getUuid(),
    operation: run.op.id,
    sheetId: run.sel.sheetId,
    row: run.sel.row,
    column: run.sel.column,
    numRows: run.sel.numRows,
    numColumns: run.sel.numColumns,
    mapping: run.mapping,
    columns: run.columns,
    targetColumn: run.targetColumn,
    overwrite: nonEmpty > 0,
    next: 0,
    parallel: MAX_PARALLEL,
    counts: emptyCounts(),
  };
  saveCheckpoint(spreadsheetId(), checkpoint);
  return progressOf(checkpoint, run);
}

/** This user's unfinished run in this spreadsheet, if any. */
export function pendingRun(): RunProgress | null {
  const checkpoint = loadCheckpoint(spreadsheetId());
  if (!checkpoint) return null;
  try {
    return progressOf(checkpoint, resolveCheckpoint(checkpoint));
  } catch {
    return null;
  }
}

export function discardRun(runId: string): void {
  const id = spreadsheetId();
  const checkpoint = loadCheckpoint(id);
  if (checkpoint && checkpoint.id === runId) deleteCheckpoint(id);
}

/** Does the next chunk of the run and returns where it stands. */
export function runChunk(runId: string): RunProgress {
  const lock = LockService.getDocumentLock();
  if (!lock.tryLock(10_000))
    throw new Error('Another run is writing to this spreadsheet; try again in a moment.');
  try {
    return doChunk(runId);
  } finally {
    lock.releaseLock();
  }
}

function doChunk(runId: string): RunProgress {
  const started = Date.now();
  const ssId = spreadsheetId();
  const checkpoint = loadCheckpoint(ssId);
  if (!checkpoint || checkpoint.id !== runId) {
    throw new Error('This run is no longer current (it finished, or another one replaced it).');
  }
  const run = resolveCheckpoint(checkpoint);
  const total = run.sel.numRows - 1;
  if (checkpoint.next >= total) {
    deleteCheckpoint(ssId);
    return progressOf(checkpoint, run, true);
  }
  const stored = userSettings();
  if (!stored.apiKey) throw new Error(noKeyMessageForSidebar());
  const settings = asCoreSettings(stored);

  const start = checkpoint.next;
  const end = Math.min(total, start + CHUNK_ROWS);
  const plans = readPlans(run, end);
  const firstRow = new Map<string, number>();
  plans.forEach((plan, i) => {
    if (plan.kind === 'request' && !firstRow.has(plan.key)) firstRow.set(plan.key, i);
  });

  const answers = fetchChunkAnswers(run, settings, plans, firstRow, start, end, started, checkpoint.parallel);
  checkpoint.parallel = answers.parallel;
  if (answers.spent > 0) {
    // Recorded before writing: if the write fails, the answers wait in the cache, and the count of
    // what was paid must not be lost with the chunk.
    checkpoint.counts = { ...checkpoint.counts, spent: checkpoint.counts.spent + answers.spent };
    saveCheckpoint(ssId, checkpoint);
  }

  // Rows up to the first one still waiting for an answer are written now.
  let stop = end;
  for (let i = start; i < end; i++) {
    const plan = plans[i] as RowPlan;
    if (
      plan.kind === 'request' &&
      (firstRow.get(plan.key) as number) >= start &&
      !answers.byKey.has(plan.key)
    ) {
      stop = i;
      break;
    }
  }

  const copies = copySources(run, plans, firstRow, start, stop);
  const counts = { ...checkpoint.counts };
  counts.cached += answers.cached;
  const out: CellValue[][] = [];
  for (let i = start; i < stop; i++) {
    const plan = plans[i] as RowPlan;
    let row: LeafValue[];
    if (plan.kind === 'empty') {
      row = blankRow(run.width);
      counts.empty++;
    } else if (plan.kind === 'invalid') {
      row = statusRow(run.width, invalidText(plan.message));
      counts.invalid++;
    } else {
      const first = firstRow.get(plan.key) as number;
      row =
        first < start
          ? (copies.get(first) as LeafValue[])
          : rowForOutcome(run, answers.byKey.get(plan.key) as Outcome);
      const status = String(row[0]);
      if (status === NO_MATCH) counts.noMatch++;
      else if (status !== STATUS_OK) counts.errors++;
    }
    out.push(toCells(row));
  }

  if (stop > start) {
    const writeFrom = start === 0 ? 0 : start + 1; // selection row offset; 0 is the header row
    const writeTo = stop + 1;
    if (!checkpoint.overwrite && countNonEmpty(run, writeFrom, writeTo) > 0) {
      throw new Error(
        'Target cells that were empty when the run started are no longer empty; start again and confirm to overwrite them.',
      );
    }
    const values = start === 0 ? [toCells([STATUS_COLUMN, ...run.columns]), ...out] : out;
    const range = run.sheet.getRange(run.sel.row + writeFrom, run.targetColumn, values.length, run.width);
    range.setNumberFormat(TEXT_FORMAT);
    range.setValues(values);
  }
  counts.done = stop;
  checkpoint.next = stop;
  checkpoint.counts = counts;
  const finished = stop >= total;
  if (finished) deleteCheckpoint(ssId);
  else saveCheckpoint(ssId, checkpoint);
  SpreadsheetApp.flush();
  return progressOf(checkpoint, run, finished);
}

interface ChunkAnswers {
  readonly byKey: Map<string, Outcome>;
  readonly spent: number;
  readonly cached: number;
  readonly parallel: number;
}

/** Answers for the requests whose first row is in [start, end): from the cache, else fetched. */
function fetchChunkAnswers(
  run: Resolved,
  settings: Settings,
  plans: readonly (RowPlan & { input?: CleanInput })[],
  firstRow: ReadonlyMap<string, number>,
  start: number,
  end: number,
  started: number,
  parallel: number,
): ChunkAnswers {
  const wanted = new Map<string, CleanInput>();
  for (let i = start; i < end; i++) {
    const plan = plans[i];
    if (plan?.kind === 'request' && plan.input && firstRow.get(plan.key) === i)
      wanted.set(plan.key, plan.input);
  }
  const byKey = new Map<string, Outcome>();
  if (wanted.size === 0) return { byKey, spent: 0, cached: 0, parallel };
  const { cache, ids, cached, jobs } = pendingRequests(run.op, wanted, settings);
  for (const [key, outcome] of cached) byKey.set(key, outcome);
  const report = sendAll(run.op, jobs, {
    deadline: started + CHUNK_FETCH_BUDGET_MS,
    parallel,
    onAnswers: (answers) => saveAnswers(cache, answers),
  });
  const progressed = report.outcomes.size > 0 || cached.size > 0;
  for (const [key, id] of ids) {
    const outcome = report.outcomes.get(id);
    if (outcome?.kind === 'error' && outcome.error.code === 'unauthorized') {
      throw new Error(
        'Your API key was refused (401). The sidebar uses your own key: set a valid one, then resume.',
      );
    }
    if (outcome) byKey.set(key, outcome);
    else if (!progressed && !cached.has(key)) {
      // Nothing at all moved in this chunk (say, a long Retry-After): give the rows their last error
      // so that the run goes on instead of asking again for ever.
      const last = report.lastErrors.get(id);
      if (last) byKey.set(key, last);
    }
  }
  return { byKey, spent: report.spent, cached: cached.size, parallel: report.parallel };
}

/** Results already in the sheet for the first rows of requests that repeat in [start, stop). */
function copySources(
  run: Resolved,
  plans: readonly RowPlan[],
  firstRow: ReadonlyMap<string, number>,
  start: number,
  stop: number,
): Map<number, LeafValue[]> {
  const sources = new Set<number>();
  for (let i = start; i < stop; i++) {
    const plan = plans[i];
    if (plan?.kind !== 'request') continue;
    const first = firstRow.get(plan.key) as number;
    if (first < start) sources.add(first);
  }
  const copies = new Map<number, LeafValue[]>();
  if (sources.size === 0) return copies;
  const low = Math.min(...sources);
  const high = Math.max(...sources);
  const values = run.sheet
    .getRange(run.sel.row + 1 + low, run.targetColumn, high - low + 1, run.width)
    .getValues();
  for (const source of sources) copies.set(source, (values[source - low] ?? []).map(fromCell));
  return copies;
}

function rowForOutcome(run: Resolved, outcome: Outcome): LeafValue[] {
  if (outcome.kind === 'record') return [STATUS_OK, ...flattenRecord(run.op, outcome.record, run.columns)];
  if (outcome.kind === 'no-match') return statusRow(run.width, NO_MATCH);
  return statusRow(run.width, errorText(outcome.error.message));
}

function statusRow(width: number, status: string): LeafValue[] {
  const row = blankRow(width);
  row[0] = status;
  return row;
}

function blankRow(width: number): LeafValue[] {
  return Array.from({ length: width }, () => '');
}

/** Plans of data rows [0, end) from the sheet as it is now. */
function readPlans(run: Resolved, end: number): (RowPlan & { input?: CleanInput })[] {
  if (end <= 0) return [];
  const values = run.sheet.getRange(run.sel.row + 1, run.sel.column, end, run.sel.numColumns).getValues();
  const mapping = { fields: run.mapping, problem: undefined };
  return values.map((row) => planRow(run.op, rowInput(mapping, row)));
}

/** Target cells (value or formula) in selection rows [from, to), 0 being the header row. */
function countNonEmpty(run: Resolved, from: number, to: number): number {
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

function resolve(request: RunRequest): Resolved {
  if (request === null || typeof request !== 'object') throw new Error('No run was described');
  const op = findOperation(String(request.operation));
  if (!op) throw new Error(`Unknown operation ${String(request.operation)}`);
  const sel = request.selection;
  if (!sel || ![sel.sheetId, sel.row, sel.column, sel.numRows, sel.numColumns].every(Number.isInteger)) {
    throw new Error('Select the rows to work on, with their header row, and try again');
  }
  const sheet = findSheet(sel.sheetId);
  if (sel.numRows < 2) throw new Error('Select a header row and at least one row below it');
  const mapping: Record<string, number> = {};
  const used = new Set<number>();
  for (const [name, offset] of Object.entries(request.mapping ?? {})) {
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

function resolveCheckpoint(checkpoint: Checkpoint): Resolved {
  return resolve({
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

function progressOf(checkpoint: Checkpoint, run: Resolved, finished = false): RunProgress {
  return {
    runId: checkpoint.id,
    operation: run.op.id,
    title: run.op.title,
    sheetName: run.sheet.getName(),
    inputA1: inputA1(run),
    targetA1: targetA1(run),
    total: run.sel.numRows - 1,
    finished,
    counts: { ...checkpoint.counts },
  };
}

function inputA1(run: Resolved): string {
  return rangeA1(run.sel.row, run.sel.column, run.sel.numRows, run.sel.numColumns);
}

function targetA1(run: Resolved): string {
  return rangeA1(run.sel.row, run.targetColumn, run.sel.numRows, run.width);
}

function spreadsheetId(): string {
  return SpreadsheetApp.getActiveSpreadsheet().getId();
}
