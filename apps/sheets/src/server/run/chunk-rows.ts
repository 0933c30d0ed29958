// The rows a chunk writes: each row's cells (a blank, an invalid input's status, an answer, or a copy
// of the row that first asked the same request), counted by what they came to, with the provenance
// note of each answer; then written to the sheet in one range, after checking that the target cells
// empty at the start still are.
import {
  type LeafValue,
  type Outcome,
  type RowOutcomeKind,
  rowStatusText,
  type Settings,
} from '@enrich/core/universal';
import { type CellValue, TEXT_FORMAT, toCells } from '../cells/values.js';
import { currentScrubber } from '../key/scrub.js';
import { STATUS_COLUMN } from '../messages.js';
import { otherService, provenanceNote } from '../provenance/note.js';
import type { Checkpoint, RunCounts } from './checkpoint.js';
import type { ChunkAnswers, ChunkWindow } from './chunk-answers.js';
import { countNonEmpty, type ResolvedRun } from './resolve.js';
import { blankRow, copySources, kindOfStatus, rowForOutcome, statusRow } from './rows.js';

/** The first row from `start` still waiting for an answer (rows before it can be written now). */
export function writableUpTo(window: ChunkWindow, answers: ChunkAnswers): number {
  const { plans, firstRow, start, end } = window;
  for (let i = start; i < end; i++) {
    const plan = plans[i];
    if (
      plan?.kind === 'request' &&
      (firstRow.get(plan.key) as number) >= start &&
      !answers.byKey.has(plan.key)
    )
      return i;
  }
  return end;
}

/** Writes the rows from `window.start` to `stop` and returns the run's counts with them. */
export function writeRows(
  run: ResolvedRun,
  checkpoint: Checkpoint,
  settings: Settings,
  answers: ChunkAnswers,
  window: ChunkWindow & { readonly stop: number },
): RunCounts {
  const counts: RunCounts = { ...checkpoint.counts };
  counts.cached += answers.cached;
  const { start, stop } = window;
  if (stop <= start) return counts;
  const { cells, notes } = renderRows(run, settings, answers, window, counts);
  const writeFrom = start === 0 ? 0 : start + 1; // selection row offset; 0 is the header row
  if (!checkpoint.overwrite && countNonEmpty(run, writeFrom, stop + 1) > 0) {
    throw new Error(
      'Target cells that were empty when the run started are no longer empty; start again and confirm to overwrite them.',
    );
  }
  const header = toCells([STATUS_COLUMN, ...run.columns], currentScrubber());
  const values = start === 0 ? [header, ...cells] : cells;
  const range = run.sheet.getRange(run.sel.row + writeFrom, run.targetColumn, values.length, run.width);
  range.setNumberFormat(TEXT_FORMAT);
  range.setValues(values);
  range.offset(0, 0, values.length, 1).setNotes(start === 0 ? [[''], ...notes] : notes);
  return counts;
}

// Each row's cells and the note on its Status cell (where its answer came from: provenance/note.ts).
function renderRows(
  run: ResolvedRun,
  settings: Settings,
  answers: ChunkAnswers,
  window: ChunkWindow & { readonly stop: number },
  counts: RunCounts,
): { cells: CellValue[][]; notes: string[][] } {
  const { plans, firstRow, start, stop } = window;
  const copies = copySources(run, plans, firstRow, start, stop);
  const scrub = currentScrubber();
  const service = otherService(run.op, settings);
  const cells: CellValue[][] = [];
  const notes: string[][] = [];
  for (let i = start; i < stop; i++) {
    const plan = plans[i];
    let row: LeafValue[];
    let note = '';
    if (!plan || plan.kind === 'empty') {
      row = blankRow(run.width);
      counts.empty++;
    } else if (plan.kind === 'invalid') {
      row = statusRow(run.width, rowStatusText('invalid', plan.message));
      counts.invalid++;
    } else {
      const first = firstRow.get(plan.key) as number;
      let kind: RowOutcomeKind;
      if (first < start) {
        const copy = copies.get(first);
        row = copy?.cells ?? blankRow(run.width);
        note = copy?.note ?? '';
        kind = kindOfStatus(String(row[0]));
      } else {
        const written = rowForOutcome(run, answers.byKey.get(plan.key) as Outcome);
        const origin = answers.origins.get(plan.key);
        row = written.cells;
        kind = written.kind;
        if (origin && isAnswer(kind)) note = provenanceNote(run.op, origin, service);
      }
      count(counts, kind);
    }
    cells.push(toCells(row, scrub));
    notes.push([note]);
  }
  return { cells, notes };
}

/** A row that shows an answer the service gave (paid for), so it has a provenance. */
function isAnswer(kind: RowOutcomeKind): boolean {
  return kind === 'ok' || kind === 'no-match' || kind === 'unreadable';
}

/** Counts a request row by what it came to. */
function count(counts: RunCounts, kind: RowOutcomeKind): void {
  if (kind === 'no-match') counts.noMatch++;
  else if (kind === 'unreadable') counts.unreadable++;
  else if (kind !== 'ok') counts.errors++;
}
