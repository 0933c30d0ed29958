// What a finished sidebar run brought back (core's breakdown.ts): the match rate, from the run's own
// counts, and each coded column the run wrote, value by value, counted from the written range as
// its cells hold the values.
//
// Counted once, in the chunk that finishes, from the sheet rather than chunk by chunk: the sheet is
// already the run's record (a repeated request copies an earlier row's cells from there, and a
// resumed chunk may write a row again), so counting it needs no state carried between executions,
// cannot grow the checkpoint towards its 9 KB with values a service invents, and makes each count
// the number of rows that hold the value by construction. It costs one getValues of the target
// block, and none when the run wrote no coded column.
import { BreakdownTally, breakdownColumns, type OutcomeCounts } from '@enrich/core/universal';
import { fromCell } from '../cells/values.js';
import type { RunCounts } from './checkpoint.js';
import type { ResolvedRun } from './resolve.js';
import { kindOfStatus } from './rows.js';
import type { RunBreakdown } from './types.js';

/** The run's counts in core's terms; every written row is one of them, empty rows aside. */
export function outcomeCounts(counts: RunCounts): OutcomeCounts {
  const notOk = counts.empty + counts.noMatch + counts.unreadable + counts.invalid + counts.errors;
  return {
    ok: counts.done - notOk,
    noMatch: counts.noMatch,
    unreadable: counts.unreadable,
    invalid: counts.invalid,
    errors: counts.errors,
    // A sidebar run writes every row before it finishes: none is left unsent.
    notSent: 0,
  };
}

/** Core's breakdown, of the coded columns the run wrote, and what it leaves out. */
export function runBreakdown(run: ResolvedRun, counts: RunCounts): RunBreakdown {
  const coded = breakdownColumns(run.op);
  // Where each coded column is among the written ones (after Status), -1 when it was not chosen.
  const at = coded.map((c) => run.columns.indexOf(c.column));
  const tally = new BreakdownTally(run.op);
  const rows = run.sel.numRows - 1;
  if (rows > 0 && at.some((i) => i >= 0)) {
    const values = run.sheet.getRange(run.sel.row + 1, run.targetColumn, rows, run.width).getValues();
    for (const row of values) {
      // Ok rows only, as core counts them: other rows hold no answer's values.
      if (kindOfStatus(String(fromCell(row[0]))) !== 'ok') continue;
      tally.add(at.map((i) => (i < 0 ? '' : String(fromCell(row[1 + i])))));
    }
  }
  const breakdown = tally.result(outcomeCounts(counts));
  return {
    ...breakdown,
    fields: breakdown.fields.filter((field) => run.columns.includes(field.column)),
    notWritten: coded.filter((_, i) => (at[i] as number) < 0).map((c) => c.column),
    emptyRows: counts.empty,
  };
}
