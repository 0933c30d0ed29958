// Where a sidebar run stands, so that closing the sidebar, a failed chunk or a stopped run loses
// nothing. Kept in the user properties of whoever started the run, one per spreadsheet:
// - user, not document properties: the run spends that user's key, and other editors need not see
//   (or clobber) it; user, not cache: a cache entry may vanish at any time, a checkpoint must not;
// - small (about 1 KB, far under the 9 KB per value): positions and counts only. The results
//   themselves live in the sheet, which is also what later duplicate rows copy from.
import type { OperationId, PaceState } from '@enrich/core/universal';

export interface RunCounts {
  /** Rows written, the header not counted. */
  done: number;
  /** Transactions this run paid for. */
  spent: number;
  /** Answers taken from the document cache instead of being paid for again. */
  cached: number;
  noMatch: number;
  /** Paid answers that could not be read. */
  unreadable: number;
  invalid: number;
  errors: number;
  empty: number;
  /** 429 answers and retried attempts. */
  throttled: number;
  retries: number;
}

export interface Checkpoint {
  readonly v: 1;
  readonly id: string;
  readonly operation: OperationId;
  readonly sheetId: number;
  /** The selection: its first row is the header row. */
  readonly row: number;
  readonly column: number;
  readonly numRows: number;
  readonly numColumns: number;
  /** Input field → column offset inside the selection. */
  readonly mapping: Readonly<Record<string, number>>;
  readonly columns: readonly string[];
  readonly targetColumn: number;
  /** The user confirmed writing over non-empty target cells. */
  readonly overwrite: boolean;
  /** The user asked again for unreadable answers paid before this time (ms); absent otherwise. */
  readonly askAgainBefore?: number;
  /**
   * The most this run may spend: what Check showed the user (or less, when Start found less). A run
   * whose range changed since Check stops here rather than buying what the range holds now. Absent
   * in a checkpoint saved before it was kept: such a run buys nothing more (ceiling.ts).
   */
  readonly planned?: number;
  /** Next data row to do (0-based, header excluded). */
  next: number;
  /**
   * What the pace controller learnt (core's PaceState: in flight, rate), carried from chunk to
   * chunk; absent at the start of a run.
   */
  pace?: PaceState;
  /** Where the pace stood after the last chunk that sent anything, in core's words (paceText). */
  paceText?: string;
  counts: RunCounts;
}

const PREFIX = 'enrich.run.';

function propKey(spreadsheetId: string): string {
  return PREFIX + spreadsheetId;
}

export function loadCheckpoint(spreadsheetId: string): Checkpoint | null {
  const text = PropertiesService.getUserProperties().getProperty(propKey(spreadsheetId));
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Checkpoint;
    return value.v === 1 ? value : null;
  } catch {
    return null;
  }
}

/**
 * Saves the checkpoint; with `also` (the spend record, spend.ts), in the same setProperties call, so
 * that what a chunk paid is in both or in neither, for one property write.
 */
export function saveCheckpoint(
  spreadsheetId: string,
  checkpoint: Checkpoint,
  also?: Readonly<Record<string, string>>,
): void {
  const props = PropertiesService.getUserProperties();
  const value = JSON.stringify(checkpoint);
  if (also) props.setProperties({ ...also, [propKey(spreadsheetId)]: value });
  else props.setProperty(propKey(spreadsheetId), value);
}

export function deleteCheckpoint(spreadsheetId: string): void {
  PropertiesService.getUserProperties().deleteProperty(propKey(spreadsheetId));
}

export function emptyCounts(): RunCounts {
  return {
    done: 0,
    spent: 0,
    cached: 0,
    noMatch: 0,
    unreadable: 0,
    invalid: 0,
    errors: 0,
    empty: 0,
    throttled: 0,
    retries: 0,
  };
}
