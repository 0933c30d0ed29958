// The rows a chunk writes: a status cell in core's words, then the chosen columns. A request's first
// row gets the answer; later rows asking the same copy that row's result from the sheet (written by
// an earlier chunk), so the checkpoint needs no answers.
import { type LeafValue, type Outcome, ROW_OUTCOMES, type RowOutcomeKind } from '@enrich/core/universal';
import { outcomeRow } from '../cells/outcome-row.js';
import { fromCell } from '../cells/values.js';
import type { PlannedRow, ResolvedRun } from './resolve.js';

/** A row to write, with what it came to (for the counts: a kind, not a status string to match). */
export interface WrittenRow {
  readonly kind: RowOutcomeKind;
  readonly cells: LeafValue[];
}

export function rowForOutcome(run: ResolvedRun, outcome: Outcome): WrittenRow {
  const row = outcomeRow(run.op, outcome, run.columns);
  return { kind: row.kind, cells: [row.status, ...row.values] };
}

export function statusRow(width: number, status: string): LeafValue[] {
  const row = blankRow(width);
  row[0] = status;
  return row;
}

export function blankRow(width: number): LeafValue[] {
  return Array.from({ length: width }, () => '');
}

/**
 * What a row copied from the sheet came to, read from its status cell by core's words: the row it
 * copies was written by an earlier chunk, and the sheet is the only record of it. Any other
 * status (one the user edited, say) reads as an error.
 */
export function kindOfStatus(status: string): RowOutcomeKind {
  const kinds: RowOutcomeKind[] = ['unreadable', 'no-match', 'ok', 'invalid'];
  for (const kind of kinds) {
    const { word } = ROW_OUTCOMES[kind];
    if (status === word || status.startsWith(`${word}:`) || status.startsWith(`${word} (`)) return kind;
  }
  return 'error';
}

/** A row written by an earlier chunk, to copy: its cells and its Status cell's provenance note. */
export interface CopiedRow {
  readonly cells: LeafValue[];
  readonly note: string;
}

/** Results already in the sheet for the first rows of requests that repeat in [start, stop). */
export function copySources(
  run: ResolvedRun,
  plans: readonly PlannedRow[],
  firstRow: ReadonlyMap<string, number>,
  start: number,
  stop: number,
): Map<number, CopiedRow> {
  const sources = new Set<number>();
  for (let i = start; i < stop; i++) {
    const plan = plans[i];
    if (plan?.kind !== 'request') continue;
    const first = firstRow.get(plan.key) as number;
    if (first < start) sources.add(first);
  }
  const copies = new Map<number, CopiedRow>();
  if (sources.size === 0) return copies;
  const low = Math.min(...sources);
  const high = Math.max(...sources);
  const range = run.sheet.getRange(run.sel.row + 1 + low, run.targetColumn, high - low + 1, run.width);
  const values = range.getValues();
  const notes = range.offset(0, 0, high - low + 1, 1).getNotes();
  for (const source of sources) {
    copies.set(source, {
      cells: (values[source - low] ?? []).map(fromCell),
      note: String(notes[source - low]?.[0] ?? ''),
    });
  }
  return copies;
}
