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

export function planRow(
  op: Operation,
  raw: Readonly<Record<string, unknown>>,
): RowPlan & { input?: CleanInput } {
  if (Object.values(raw).every(isBlank)) return { kind: 'empty' };
  const checked = validate(op, raw);
  if (!checked.ok) return { kind: 'invalid', message: checked.message };
  return { kind: 'request', key: requestKey(op, checked.input), input: checked.input };
}
