// What one row of the output says about its request: the status column, the operation's output
// columns, and the fields the API description does not list (extra columns), from the outcome of
// the call (or the reason it was never made).
import {
  flattenRecord,
  type LeafValue,
  type Mismatch,
  type Operation,
  type Outcome,
  type OutputRecord,
  outputColumns,
} from '@enrich/core';

export interface RowResult {
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
}

export type ResultKind = 'ok' | 'no-match' | 'unreadable' | 'invalid' | 'error';

/** The status prefix of a paid answer that could not be read. */
export const UNREADABLE_STATUS = 'paid, unreadable';

// A spreadsheet reads a cell starting with one of these as a formula (CSV injection). Tab and CR
// are on the list because some spreadsheets strip them and then see the character after.
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * Makes text from the service inert when the CSV is opened in a spreadsheet, by putting a single
 * quote in front (the OWASP advice; spreadsheets show the text as typed, without the quote).
 */
export function neutralise(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

function cell(value: LeafValue | undefined): string {
  if (value === null || value === undefined) return '';
  // Numbers and booleans cannot carry a formula; "-3" stays a number for the spreadsheet.
  if (typeof value !== 'string') return String(value);
  return neutralise(value);
}

/** Whether a stored outcome is a paid answer that could not be read (also as an earlier version stored it). */
export function isUnreadable(outcome: Outcome): boolean {
  return (
    outcome.kind === 'unreadable' ||
    (outcome.kind === 'error' && outcome.error.code === 'bad-response' && outcome.error.status === 200)
  );
}

/**
 * The row for an outcome. `columns` are the chosen output columns; a name the description does
 * not have (an extra field named in --fields) is filled from the answer's unknown fields.
 */
export function resultOf(op: Operation, outcome: Outcome, columns: readonly string[]): RowResult {
  const blank = columns.map(() => '');
  switch (outcome.kind) {
    case 'record': {
      // Answers journaled by earlier versions have neither extra nor mismatches.
      const extra = outcome.extra ?? {};
      const mismatches: readonly Mismatch[] = outcome.mismatches ?? [];
      const documented = flattenRecord(op, outcome.record as OutputRecord, columns);
      const cells = columns.map((column, i) =>
        column in extra && !isDocumented(op, column) ? cell(extra[column]) : cell(documented[i]),
      );
      const extraCells: Record<string, string> = {};
      for (const [name, value] of Object.entries(extra)) extraCells[name] = cell(value);
      const differ = mismatchedFields(mismatches);
      const status = differ === 0 ? 'ok' : `ok (${differ} field${differ === 1 ? '' : 's'} not as documented)`;
      return Object.keys(extraCells).length > 0
        ? { status, cells, extra: extraCells, mismatches: differ }
        : { status, cells, mismatches: differ };
    }
    case 'no-match':
      return { status: 'no match', cells: blank };
    case 'unreadable':
      return { status: `${UNREADABLE_STATUS}: ${outcome.reason}`, cells: blank };
    case 'error':
      if (isUnreadable(outcome))
        return { status: `${UNREADABLE_STATUS}: ${outcome.error.message}`, cells: blank };
      return {
        status:
          outcome.error.code === 'too-many-results'
            ? `no match: ${outcome.error.message}`
            : `error: ${outcome.error.message}`,
        cells: blank,
      };
  }
}

/** Distinct fields that differed (a field can differ in case and type at once). */
function mismatchedFields(mismatches: readonly Mismatch[]): number {
  return new Set(mismatches.map((m) => m.field)).size;
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

export function invalidResult(message: string, columns: readonly string[]): RowResult {
  return { status: `invalid: ${message}`, cells: columns.map(() => '') };
}

export function kindOf(result: RowResult): ResultKind {
  const { status } = result;
  if (status === 'ok' || status.startsWith('ok (')) return 'ok';
  if (status.startsWith('no match')) return 'no-match';
  if (status.startsWith(UNREADABLE_STATUS)) return 'unreadable';
  if (status.startsWith('invalid')) return 'invalid';
  return 'error';
}
