// What a sidebar run may spend: at most what the user saw at Check, kept in the checkpoint. The
// range can change after Check (rows pasted over, a column sorted, answers that aged out): Start
// refuses when the run would now cost more than Check said, and a chunk that would pass the
// ceiling buys nothing, stops the run and says what changed and what to do.
import { rangeA1 } from '../cells/a1.js';
import type { Checkpoint } from './checkpoint.js';
import type { ResolvedRun } from './resolve.js';

const CHECK_AGAIN =
  'Check again to see what the rest costs now, then Start (tick Overwrite: rows already done are ' +
  'answered from the kept answers, for nothing).';

/**
 * The ceiling of a run being started: what it costs now, provided that is no more than Check showed
 * (`shown`; absent when no number was shown). Refuses when the range now needs more.
 */
export function startCeiling(shown: unknown, costNow: number): number {
  if (shown !== undefined && shown !== null && !(Number.isInteger(shown) && costNow <= (shown as number))) {
    throw new Error(
      `The range changed since Check: it now needs up to ${plural(costNow)}; Check showed ${String(shown)}. ` +
        'Check again, then Start.',
    );
  }
  return costNow;
}

/** Transactions the run may still spend. */
export function allowanceLeft(checkpoint: Checkpoint): number {
  if (checkpoint.planned === undefined) return 0;
  return Math.max(0, checkpoint.planned - checkpoint.counts.spent);
}

/** Why the run stopped at its ceiling: the next rows need `needed` transactions, more than is left. */
export function ceilingMessage(
  checkpoint: Checkpoint,
  run: ResolvedRun,
  rows: { readonly from: number; readonly to: number },
  needed: number,
): string {
  const where = rangeA1(run.sel.row + 1 + rows.from, run.sel.column, rows.to - rows.from, run.sel.numColumns);
  const planned = checkpoint.planned;
  return (
    (planned === undefined
      ? 'This run was started before the add-on kept what Check showed, so it spends nothing more'
      : `The range changed since Check: this run was to spend at most ${plural(planned)} and has spent ${checkpoint.counts.spent}`) +
    `; rows ${where} now need up to ${plural(needed)} more, so nothing more was spent. ${CHECK_AGAIN}`
  );
}

function plural(n: number): string {
  return `${n} transaction${n === 1 ? '' : 's'}`;
}
