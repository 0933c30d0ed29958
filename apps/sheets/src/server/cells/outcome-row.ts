// One answer as one row of cells, the same for formulas and the sidebar: a status in core's words
// (`ok`, `ok (2 fields not as documented)`, `no match`, `no match: Too many records match (440)…`,
// `paid, unreadable: <why>`, `error: <why>`)
// and the chosen columns' values. Columns are documented names (core's flat names) or extra fields
// the service sent beyond the API description (`DID`, `Name.Nick`), which core keeps in
// `outcome.extra` with dotted names.
import {
  chooseColumns,
  flattenRecord,
  type LeafValue,
  type Operation,
  type Outcome,
  outputField,
  type RowOutcomeKind,
  rowStatusOf,
} from '@enrich/core/universal';

export interface OutcomeRow {
  readonly kind: RowOutcomeKind;
  /** The row's status text, as a Status cell shows it. */
  readonly status: string;
  /** One value per column; empty strings when the answer has no record. */
  readonly values: LeafValue[];
}

/** Chosen columns: documented ones, and names taken as extra fields the service may send. */
export interface ChosenColumns {
  readonly columns: string[];
  /** The names in `columns` that the API description does not have. */
  readonly extras: string[];
}

/** An extra field's name: a plain identifier with dots, as core flattens unknown fields. */
const EXTRA_NAME = /^[A-Za-z_][\w.-]{0,63}$/;

/**
 * Parses a `fields` list: documented columns (any case), else names taken as extra fields. A name
 * that cannot be a field name fails with core's message, which lists the documented columns.
 */
export function chooseWithExtras(
  op: Operation,
  list: string | readonly string[] | undefined,
): ChosenColumns | { readonly message: string } {
  const names = (typeof list === 'string' ? list.split(',') : (list ?? []))
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) return { columns: [...op.defaultColumns], extras: [] };
  const columns: string[] = [];
  const extras: string[] = [];
  for (const name of names) {
    const one = chooseColumns(op, name);
    if (one.ok) columns.push(...one.columns);
    else if (EXTRA_NAME.test(name)) {
      columns.push(name);
      extras.push(name);
    } else return { message: one.message };
  }
  return { columns, extras };
}

/** An extra field's value by name: exact, else without regard to case; undefined when absent. */
export function extraValue(outcome: Outcome, name: string): LeafValue | undefined {
  if (outcome.kind !== 'record') return undefined;
  const { extra } = outcome;
  if (Object.hasOwn(extra, name)) return extra[name];
  const lower = name.toLowerCase();
  const found = Object.keys(extra).find((k) => k.toLowerCase() === lower);
  return found === undefined ? undefined : extra[found];
}

export function outcomeRow(op: Operation, outcome: Outcome, columns: readonly string[]): OutcomeRow {
  // The kind and the status are core's, as the CLI writes them (a 440 is a no match, say).
  const { kind, status } = rowStatusOf(outcome);
  if (outcome.kind !== 'record') return { kind, status, values: columns.map(() => '') };
  const documented = flattenRecord(op, outcome.record, columns);
  const values = columns.map((name, i) =>
    outputField(op, name) ? (documented[i] ?? '') : (extraValue(outcome, name) ?? ''),
  );
  return { kind, status, values };
}
