// What one row of the output says about its request: the status column and the operation's output
// columns, from the outcome of the call (or the reason it was never made).
import { flattenRecord, type LeafValue, type Operation, type Outcome } from '@enrich/core';

export interface RowResult {
  /** ok | no match | no match: reason | invalid: reason | error: reason */
  readonly status: string;
  /** One cell per chosen output column, already safe to open in a spreadsheet. */
  readonly cells: readonly string[];
}

export type ResultKind = 'ok' | 'no-match' | 'invalid' | 'error';

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

function cell(value: LeafValue): string {
  if (value === null) return '';
  // Numbers and booleans cannot carry a formula; "-3" stays a number for the spreadsheet.
  if (typeof value !== 'string') return String(value);
  return neutralise(value);
}

export function resultOf(op: Operation, outcome: Outcome, columns: readonly string[]): RowResult {
  switch (outcome.kind) {
    case 'record':
      return { status: 'ok', cells: flattenRecord(op, outcome.record, columns).map(cell) };
    case 'no-match':
      return { status: 'no match', cells: columns.map(() => '') };
    case 'error':
      return {
        status:
          outcome.error.code === 'too-many-results'
            ? `no match: ${outcome.error.message}`
            : `error: ${outcome.error.message}`,
        cells: columns.map(() => ''),
      };
  }
}

export function invalidResult(message: string, columns: readonly string[]): RowResult {
  return { status: `invalid: ${message}`, cells: columns.map(() => '') };
}

export function kindOf(result: RowResult): ResultKind {
  if (result.status === 'ok') return 'ok';
  if (result.status.startsWith('no match')) return 'no-match';
  if (result.status.startsWith('invalid')) return 'invalid';
  return 'error';
}
