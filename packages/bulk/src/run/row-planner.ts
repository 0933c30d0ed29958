// Planning each row against the operation: which column feeds which field, and whether the row is
// blank, invalid (and why), or a request (and which). The same for every kind of file.
import {
  type CleanInput,
  type ColumnMapping,
  isBlank,
  mapColumns,
  type Operation,
  planRow,
  rowInput,
  validate,
} from '@enrich/core';
import { BulkError } from './bulk-error.js';

/** Which column feeds each of the operation's fields; stops, before anything is sent, if none can. */
export function mapInput(
  op: Operation,
  path: string,
  header: readonly string[],
  overrides: Readonly<Record<string, string>>,
): ColumnMapping {
  const mapping = mapColumns(op, header, overrides);
  if (mapping.problem) {
    throw new BulkError(
      `${path}: ${mapping.problem}. Nothing was sent. Name the column with --map Field=Column (columns: ${header.join(', ')})`,
    );
  }
  return mapping;
}

// Spellings remembered: the first this many, kept for the whole run. (Forgetting the oldest to make
// room, as before, found nothing at all in a file with more spellings than room that repeats them
// in turn, such as one that writes each phone four ways: every spelling was forgotten just before
// it came round again. Keeping the first ones finds those every time.)
const PLAN_MEMORY = 20_000;

export type PlannedRow =
  | { readonly kind: 'blank'; readonly message: string }
  | {
      readonly kind: 'invalid';
      readonly message: string;
      /** A long row's fields past the header (kept in the output, after status). */
      readonly trailing?: readonly string[];
    }
  | { readonly kind: 'request'; readonly key: string; readonly input: CleanInput };

/**
 * Why a valid request must not be sent, or undefined: a person forgotten at their request (core's
 * SuppressionCheck.refusal). Its rows are invalid with that reason: nothing sent, nothing kept.
 */
export type Refuse = (op: Operation, input: CleanInput) => string | undefined;

function refused(op: Operation, key: string, input: CleanInput, refuse: Refuse | undefined): PlannedRow {
  const reason = refuse?.(op, input);
  return reason === undefined ? { kind: 'request', key, input } : { kind: 'invalid', message: reason };
}

/** Plans rows of a file with this header: blank, invalid (with the reason) or a request. */
export function rowPlanner(
  op: Operation,
  header: readonly string[],
  mapping: ColumnMapping,
  refuse?: Refuse | undefined,
) {
  const empty = validate(op, {});
  const blankMessage = empty.ok ? 'blank row' : `blank row (${empty.message})`;
  const columns = Object.values(mapping.fields);
  // Files repeat values (that is what deduplication is for); checking each spelling once saves
  // most of the per-row work on a large file.
  const planned = new Map<string, PlannedRow>();
  return (fields: readonly string[]): PlannedRow => {
    if (fields.length > header.length) {
      return {
        kind: 'invalid',
        message: `the row has ${fields.length} fields but the header has ${header.length}; nothing is sent for it, and its extra fields are kept after the status column`,
        trailing: fields.slice(header.length),
      };
    }
    let values = columns.length === 1 ? (fields[columns[0] as number] ?? '') : '';
    if (columns.length > 1) for (const index of columns) values += `${fields[index] ?? ''}\u0000`;
    const known = planned.get(values);
    if (known) return known;
    // A row with other cells but none of the operation's fields is missing them (core says which);
    // only a row with nothing at all is blank. That depends on cells outside `values`, so such a
    // row's plan is not remembered under them.
    const input = rowInput(mapping, fields);
    const noneGiven = Object.values(input).every(isBlank);
    const plan = planRow(op, input, { otherCells: noneGiven && fields.some((cell) => !isBlank(cell)) });
    const result: PlannedRow =
      plan.kind === 'empty'
        ? { kind: 'blank', message: blankMessage }
        : plan.kind === 'invalid'
          ? { kind: 'invalid', message: plan.message }
          : refused(op, plan.key, plan.input as CleanInput, refuse);
    if (!noneGiven && planned.size < PLAN_MEMORY) planned.set(values, result);
    return result;
  };
}
