// The breakdown of a run (core's breakdown.ts), counted as rows are read: a row whose answer is
// known counts at once, and a request's waiting rows count together when its answer arrives. Each
// answer's coded values are numbered once and remembered with its result, so a file that repeats
// its requests costs a few array additions per row.
import { type Breakdown, BreakdownTally, type Operation, type TallyCodes } from '@enrich/core';
import type { RowResult } from './row-result.js';
import type { BulkSummary } from './summary.js';

export class BreakdownCounter {
  private readonly tally: BreakdownTally;
  private readonly codes = new WeakMap<RowResult, TallyCodes>();

  constructor(op: Operation) {
    this.tally = new BreakdownTally(op);
  }

  /** Counts `rows` rows of one result (only ok rows have coded values). */
  add(result: RowResult, rows: number | undefined = 1): void {
    if (result.coded === undefined || !rows) return;
    let codes = this.codes.get(result);
    if (codes === undefined) {
      codes = this.tally.codesOf(result.coded);
      this.codes.set(result, codes);
    }
    this.tally.count(codes, rows);
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
