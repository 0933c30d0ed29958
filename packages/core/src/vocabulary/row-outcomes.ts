// What one row of a bulk run (a CSV line, a spreadsheet row) came to, and the one spelling every
// client writes for it in the row's status. The CLI's output files are compared byte for byte
// across versions, so these words do not change lightly.

import type { Outcome } from '../response.js';

export type RowOutcomeKind = 'ok' | 'no-match' | 'invalid' | 'blank' | 'error' | 'unreadable';

export interface RowOutcome {
  /** The status word, as the row's status cell starts. */
  readonly word: string;
  /** How a detail follows the word: `ok (2 fields not as documented)`, `error: <why>`. */
  readonly detail: 'in-brackets' | 'after-colon';
  /** Whether a row with this outcome cost a transaction. */
  readonly paid: boolean;
}

export const ROW_OUTCOMES: Readonly<Record<RowOutcomeKind, RowOutcome>> = {
  ok: { word: 'ok', detail: 'in-brackets', paid: true },
  // 204, and 440 (too many matches): the search ran.
  'no-match': { word: 'no match', detail: 'after-colon', paid: true },
  invalid: { word: 'invalid', detail: 'after-colon', paid: false },
  // A blank row is written as an invalid one (its detail says "blank row"); counted apart.
  blank: { word: 'invalid', detail: 'after-colon', paid: false },
  error: { word: 'error', detail: 'after-colon', paid: false },
  // A 200 whose body could not be read: paid for all the same.
  unreadable: { word: 'paid, unreadable', detail: 'after-colon', paid: true },
};

/** The status text of a row: `ok`, `no match`, `invalid: <why>`, `paid, unreadable: <why>`... */
export function rowStatusText(kind: RowOutcomeKind, detail?: string): string {
  const { word, detail: style } = ROW_OUTCOMES[kind];
  if (detail === undefined || detail === '') return word;
  return style === 'in-brackets' ? `${word} (${detail})` : `${word}: ${detail}`;
}

/** The detail of an ok row whose answer differed from the API description in some fields. */
export function notAsDocumented(fields: number): string | undefined {
  if (fields === 0) return undefined;
  return `${fields} field${fields === 1 ? '' : 's'} not as documented`;
}

/** The kinds of row an answer (or an error instead of one) makes. */
export type AnsweredKind = Exclude<RowOutcomeKind, 'invalid' | 'blank'>;

/**
 * The kind of row an answer makes, the same in every client. A 440 (too many matches) is paid and
 * says that nothing matched precisely enough: a kind of no match, with the service's reason as the
 * detail. A 200 whose body could not be read is paid, unreadable.
 */
export function rowKindOf(outcome: Outcome): AnsweredKind {
  switch (outcome.kind) {
    case 'record':
      return 'ok';
    case 'no-match':
      return 'no-match';
    case 'unreadable':
      return 'unreadable';
    case 'error':
      return outcome.error.code === 'too-many-results' ? 'no-match' : 'error';
  }
}

/** How many distinct fields of an answer differed from the API description (one can differ twice). */
export function mismatchedFieldCount(outcome: Outcome): number {
  if (outcome.kind !== 'record') return 0;
  return new Set(outcome.mismatches.map((m) => m.field)).size;
}

/** The row an answer makes: its kind, and its status text with the detail (`no match: Too many…`). */
export function rowStatusOf(outcome: Outcome): { readonly kind: AnsweredKind; readonly status: string } {
  const kind = rowKindOf(outcome);
  const detail =
    outcome.kind === 'record'
      ? notAsDocumented(mismatchedFieldCount(outcome))
      : outcome.kind === 'unreadable'
        ? outcome.reason
        : outcome.kind === 'error'
          ? outcome.error.message
          : undefined;
  return { kind, status: rowStatusText(kind, detail) };
}
