// Plans one row of a batch before anything is spent: blank (nothing given), invalid (and why), or
// a request with its request key, so that a request repeated in many rows is sent once.
import type { Operation } from './catalog.js';
import { isBlank } from './normalise.js';
import { requestKey } from './request-key.js';
import { type CleanInput, validate } from './validate.js';

export type RowPlan =
  | { readonly kind: 'empty' }
  | { readonly kind: 'invalid'; readonly message: string }
  | { readonly kind: 'request'; readonly key: string };

/**
 * `otherCells`: the row has cells besides the operation's fields. A row that gives none of the
 * fields is then not blank but missing them, and says which ("no Phone in this row"); a row with
 * nothing at all is empty.
 */
export function planRow(
  op: Operation,
  raw: Readonly<Record<string, unknown>>,
  options: { readonly otherCells?: boolean } = {},
): RowPlan & { input?: CleanInput } {
  if (Object.values(raw).every(isBlank)) {
    return options.otherCells ? { kind: 'invalid', message: missingFieldsMessage(op) } : { kind: 'empty' };
  }
  const checked = validate(op, raw);
  if (!checked.ok) return { kind: 'invalid', message: checked.message };
  return { kind: 'request', key: requestKey(op, checked.input), input: checked.input };
}

/** "no Phone in this row (Phone Lookup: Phone is required)": the fields, and the rule they break. */
export function missingFieldsMessage(op: Operation): string {
  const names = op.inputs.map((f) => f.name);
  const fields = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  const rule = validate(op, {});
  return rule.ok ? `no ${fields} in this row` : `no ${fields} in this row (${rule.message})`;
}
