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

/**
 * What a row's result is, for counting and for clients that show it (not a string to match):
 * `not-sent` is a row whose request the run never sent (it stopped sending: budget, refused key,
 * allowance, outage, Ctrl-C); `blank` an invalid row with nothing in it.
 */
export type ResultKind = 'ok' | 'no-match' | 'unreadable' | 'invalid' | 'blank' | 'error' | 'not-sent';

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
}

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
        ? { kind: 'ok', status, cells, extra: extraCells, mismatches: differ }
        : { kind: 'ok', status, cells, mismatches: differ };
    }
    case 'no-match':
      return { kind: 'no-match', status: 'no match', cells: blank };
    case 'unreadable':
      return { kind: 'unreadable', status: `${UNREADABLE_STATUS}: ${outcome.reason}`, cells: blank };
    case 'error':
      if (isUnreadable(outcome))
        return { kind: 'unreadable', status: `${UNREADABLE_STATUS}: ${outcome.error.message}`, cells: blank };
      // Too many results (440) is paid and says nothing matched precisely enough: a kind of no match.
      if (outcome.error.code === 'too-many-results')
        return { kind: 'no-match', status: `no match: ${outcome.error.message}`, cells: blank };
      return { kind: 'error', status: `error: ${outcome.error.message}`, cells: blank };
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

/** The row of a blank or invalid input (nothing sent). */
export function invalidResult(message: string, columns: readonly string[], blank = false): RowResult {
  return { kind: blank ? 'blank' : 'invalid', status: `invalid: ${message}`, cells: columns.map(() => '') };
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
    status: `error: ${reason}`,
    cells: columns.map(() => ''),
  };
}
