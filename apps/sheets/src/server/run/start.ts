// Starting a sidebar run, and the run a user left unfinished (resume or discard it). A run over a
// selection is planned (what it will cost, plan.ts), started (a checkpoint, here), then done in
// chunks driven by the sidebar (chunk.ts), each one server call well inside the 6-minute limit. A
// stopped, failed or abandoned run resumes where it was and pays for nothing twice (README,
// "Checkpoint and resume"). Input columns are never written, and target cells that are not empty
// are written only after the user confirmed it.
import { checkApiKey } from '@enrich/core/universal';
import { noKeyMessageForSidebar, userSettings } from '../key/settings.js';
import { startCeiling } from './ceiling.js';
import {
  type Checkpoint,
  deleteCheckpoint,
  emptyCounts,
  loadCheckpoint,
  saveCheckpoint,
} from './checkpoint.js';
import { planRun } from './plan.js';
import { progressOf } from './progress.js';
import { countNonEmpty, resolveCheckpoint, resolveRun, spreadsheetId, targetA1 } from './resolve.js';
import type { RunProgress, RunRequest } from './types.js';
import { keepForUndo } from './undo.js';

/**
 * Starts a run (replacing this user's unfinished one in this spreadsheet) and returns its progress.
 * `planned`: the transactions Check showed the user, the run's ceiling (ceiling.ts); without it,
 * what the run costs now.
 */
export function startRun(request: RunRequest, confirmOverwrite: boolean, planned?: number): RunProgress {
  const run = resolveRun(request);
  const settings = userSettings();
  if (!settings.apiKey) throw new Error(noKeyMessageForSidebar());
  const keyProblem = checkApiKey(settings.apiKey);
  if (keyProblem) throw new Error(keyProblem);
  const nonEmpty = countNonEmpty(run, 0, run.sel.numRows);
  if (nonEmpty > 0 && confirmOverwrite !== true) {
    throw new Error(
      `${nonEmpty} target cell${nonEmpty === 1 ? ' is' : 's are'} not empty in ${targetA1(run)}; confirm to overwrite them, or choose another target column.`,
    );
  }
  const ceiling = startCeiling(planned, planRun(request).transactions);
  const lastNeeded = run.targetColumn + run.width - 1;
  const maxColumns = run.sheet.getMaxColumns();
  if (lastNeeded > maxColumns) run.sheet.insertColumnsAfter(maxColumns, lastNeeded - maxColumns);
  const id = Utilities.getUuid();
  // What the target held, for "Undo the last run" (undo.ts): before anything is written.
  const undo = keepForUndo(run, id);
  const checkpoint: Checkpoint = {
    v: 1,
    id,
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
    // Only answers paid before now are asked again: a resumed run never buys the new ones twice.
    askAgainBefore: request.askAgainUnreadable === true ? Date.now() : undefined,
    planned: ceiling,
    next: 0,
    counts: emptyCounts(),
  };
  saveCheckpoint(spreadsheetId(), checkpoint, undo);
  return progressOf(checkpoint, run);
}

/** This user's unfinished run in this spreadsheet, if any. */
export function unfinishedRun(): RunProgress | null {
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
