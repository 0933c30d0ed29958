// What one row of the output says about its request: the status column, the operation's output
// columns, and the fields the API description does not list (extra columns), from the outcome of
// the call (or the reason it was never made).
import {
  breakdownValues,
  flattenRecord,
  type LeafValue,
  mismatchedFieldCount,
  neutraliseFormula,
  type Operation,
  type Outcome,
  type OutputRecord,
  outputColumns,
  type RowOutcomeKind,
  rowKindOf,
  rowStatusOf,
  rowStatusText,
  type TallyCodes,
} from '@enrich/core';

/**
 * What a row's result is, for counting and for clients that show it (not a string to match):
 * `not-sent` is a row whose request the run never sent (it stopped sending: budget, refused key,
 * allowance, outage, Ctrl-C); `blank` an invalid row with nothing in it.
 */
export type ResultKind = RowOutcomeKind | 'not-sent';

export interface RowResult {
  readonly kind: ResultKind;
  /**
   * ok | ok (N fields not as documented) | no match | no match: reason | paid, unreadable: reason |
   * invalid: reason | error: reason
   */
  readonly status: string;
  /** One cell per chosen output column, already safe to open in a spreadsheet. */
  readonly cells: readonly string[];
  /** Fields the description does not list, by dotted name, as cells; undefined when none. */
  readonly extra?: Readonly<Record<string, string>>;
  /** How the answer differed from the description (for the summary). */
  readonly mismatches?: number;
  /** A long row's own fields past the header: written after status, where they shift no column. */
  readonly trailing?: readonly string[];
  /** An ok row's coded values (core's breakdownColumns), as cells: what the run's breakdown counts. */
  readonly coded?: readonly string[];
  /**
   * The coded values as the run's tally numbers them, set once by breakdown-counter.ts: a property
   * read per row, where a lookup by result cost a tenth of a cached run's CPU.
   */
  tallyCodes?: TallyCodes | undefined;
}

/** Text from the service made inert for a spreadsheet (core's one list of formula starts). */
export const neutralise = neutraliseFormula;

function cell(value: LeafValue | undefined): string {
  if (value === null || value === undefined) return '';
  // Numbers and booleans cannot carry a formula; "-3" stays a number for the spreadsheet.
  if (typeof value !== 'string') return String(value);
  return neutralise(value);
}

/** Whether a stored outcome is a paid answer that could not be read. */
export function isUnreadable(outcome: Outcome): boolean {
  return rowKindOf(outcome) === 'unreadable';
}

/**
 * The row for an outcome. `columns` are the chosen output columns; a name the description does
 * not have (an extra field named in --fields) is filled from the answer's unknown fields.
 */
export function resultOf(op: Operation, outcome: Outcome, columns: readonly string[]): RowResult {
  const blank = columns.map(() => '');
  switch (outcome.kind) {
    case 'record': {
      const { extra } = outcome;
      const documented = flattenRecord(op, outcome.record as OutputRecord, columns);
      const cells = columns.map((column, i) =>
        column in extra && !isDocumented(op, column) ? cell(extra[column]) : cell(documented[i]),
      );
      const extraCells: Record<string, string> = {};
      for (const [name, value] of Object.entries(extra)) extraCells[name] = cell(value);
      const { status } = rowStatusOf(outcome);
      const differ = mismatchedFieldCount(outcome);
      const coded = breakdownValues(op, outcome.record as OutputRecord).map(cell);
      return Object.keys(extraCells).length > 0
        ? { kind: 'ok', status, cells, extra: extraCells, mismatches: differ, coded, tallyCodes: undefined }
        : { kind: 'ok', status, cells, mismatches: differ, coded, tallyCodes: undefined };
    }
    default:
      // No record: core says what kind of row it makes (a 440 is a no match), with the reason.
      return { ...rowStatusOf(outcome), cells: blank };
  }
}

const documentedCache = new WeakMap<Operation, Set<string>>();

/** Whether a column name is one of the operation's documented output columns (any case). */
export function isDocumented(op: Operation, column: string): boolean {
  let set = documentedCache.get(op);
  if (!set) {
    set = new Set(outputColumns(op).map((c) => c.toLowerCase()));
    documentedCache.set(op, set);
  }
  return set.has(column.toLowerCase());
}

/** The row of a blank or invalid input (nothing sent). */
export function invalidResult(message: string, columns: readonly string[], blank = false): RowResult {
  const kind = blank ? 'blank' : 'invalid';
  return { kind, status: rowStatusText(kind, message), cells: columns.map(() => '') };
}

/**
 * The row of a request that got no answer: never sent (the run stopped sending), or abandoned on
 * the wire (`mayHaveBeenPaid`: an error, since the service may have billed it).
 */
export function unansweredResult(
  reason: string,
  columns: readonly string[],
  mayHaveBeenPaid: boolean,
): RowResult {
  return {
    kind: mayHaveBeenPaid ? 'error' : 'not-sent',
    // Written as an error row (its reason says "not sent"), counted apart.
    status: rowStatusText('error', reason),
    cells: columns.map(() => ''),
  };
}
