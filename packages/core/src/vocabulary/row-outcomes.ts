// What one row of a bulk run (a CSV line, a spreadsheet row) came to, and the one spelling every
// client writes for it in the row's status. The CLI's output files are compared byte for byte
// across versions, so these words do not change lightly.

export type RowOutcomeKind = 'ok' | 'no-match' | 'invalid' | 'blank' | 'error' | 'unreadable';

export interface RowOutcome {
  /** The status word, as the row's status cell starts. */
  readonly word: string;
  /** How a detail follows the word: `ok (2 fields not as documented)`, `error: <why>`. */
  readonly detail: 'in-brackets' | 'after-colon';
  /** Whether a row with this outcome cost a transaction. */
  readonly billable: boolean;
}

export const ROW_OUTCOMES: Readonly<Record<RowOutcomeKind, RowOutcome>> = {
  ok: { word: 'ok', detail: 'in-brackets', billable: true },
  // 204, and 440 (too many matches): the search ran.
  'no-match': { word: 'no match', detail: 'after-colon', billable: true },
  invalid: { word: 'invalid', detail: 'after-colon', billable: false },
  // A blank row is written as an invalid one (its detail says "blank row"); counted apart.
  blank: { word: 'invalid', detail: 'after-colon', billable: false },
  error: { word: 'error', detail: 'after-colon', billable: false },
  // A 200 whose body could not be read: paid for all the same.
  unreadable: { word: 'paid, unreadable', detail: 'after-colon', billable: true },
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
