// The breakdown of a run (core's breakdown.ts), counted as rows are read: a row whose answer is
// known counts at once, and a request's waiting rows count together when its answer arrives. Each
// answer's coded values are numbered once and kept on its result (tallyCodes), so a file that
// repeats its requests costs a few array additions per row.
import { type Breakdown, BreakdownTally, type Operation } from '@enrich/core';
import type { RowResult } from './row-result.js';
import type { BulkSummary } from './summary.js';

export class BreakdownCounter {
  private readonly tally: BreakdownTally;

  constructor(op: Operation) {
    this.tally = new BreakdownTally(op);
  }

  /** Counts `rows` rows of one result (only ok rows have coded values). */
  add(result: RowResult, rows: number | undefined = 1): void {
    if (result.coded === undefined || !rows) return;
    result.tallyCodes ??= this.tally.codesOf(result.coded);
    this.tally.count(result.tallyCodes, rows);
  }

  /** The breakdown, with the outcomes the summary counted as the rows were written. */
  breakdown(s: BulkSummary): Breakdown {
    return this.tally.result({
      ok: s.ok,
      noMatch: s.noMatch,
      unreadable: s.unreadable,
      invalid: s.invalid,
      errors: s.errors,
      notSent: s.notSent,
    });
  }
}
