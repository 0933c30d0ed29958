// What the sidebar and the server exchange about a bulk run: plain data that crosses
// google.script.run (no Date, no undefined in arrays).
import type { Breakdown, OperationId } from '@enrich/core/universal';
import type { AllowanceInfo } from '../allowance/runner.js';
import type { RunCounts } from './checkpoint.js';
import type { SpendInfo } from './spend.js';

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
  /**
   * Ask again for the answers that were paid for but could not be read (each one a transaction
   * more). Never set unless the user ticked the box that states that cost.
   */
  readonly askAgainUnreadable?: boolean;
}

export interface RunPlan {
  /** The runner's allowance in this spreadsheet: what is left of it now. */
  readonly allowance: AllowanceInfo;
  /** The sheet row where the run would stop at the allowance; null when it fits. */
  readonly stopsAtRow: number | null;
  readonly operation: OperationId;
  readonly rows: number;
  readonly empty: number;
  readonly invalid: number;
  readonly distinct: number;
  /** Distinct requests whose answers are kept already (cache or hidden sheet). */
  readonly cached: number;
  /** Of those, answers that were paid for but could not be read: asked again only on request. */
  readonly unreadable: number;
  /** What the run will spend at most: distinct valid requests not kept (plus the unreadable ones, if asked again). */
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
  /** Where the pace stands, in core's words (paceText); empty before anything was sent. */
  readonly pace: string;
  /** What came back (match rate, coded values): once the run is finished, else null. */
  readonly breakdown: RunBreakdown | null;
  /** This user's spend in this spreadsheet this month, when the chunk spent or finished; else null. */
  readonly spend: SpendInfo | null;
  /**
   * Why the run stopped before its end without spending more, and what to do (its range changed
   * since Check: the next rows need more than Check showed); null while it may go on.
   */
  readonly halted: string | null;
  /** The run stopped at the allowance: resuming goes on once there is room (raised, or a new day). */
  readonly heldByAllowance: boolean;
}

/** A run's breakdown as the sidebar shows it (breakdown.ts counts it). */
export interface RunBreakdown extends Breakdown {
  /** The operation's coded columns that were not among the output columns: no bars for them. */
  readonly notWritten: readonly string[];
  /** Empty input rows: nothing was sent for them, so they are not in the match rate. */
  readonly emptyRows: number;
}
