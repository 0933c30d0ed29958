// Plans a batch of rows before anything is spent: which rows are empty, which are invalid (and
// why), and the distinct valid requests, each sent once however often it repeats.
import type { Operation } from './catalog.js';
import { requestKey } from './request-key.js';
import { type CleanInput, validate } from './validate.js';

export type RowPlan =
  | { readonly kind: 'empty' }
  | { readonly kind: 'invalid'; readonly message: string }
  | { readonly kind: 'request'; readonly key: string };

export interface BatchPlan {
  readonly rows: readonly RowPlan[];
  /** Distinct valid requests by request key, in first-seen order. */
  readonly distinct: ReadonlyMap<string, CleanInput>;
  readonly counts: {
    readonly rows: number;
    readonly empty: number;
    readonly invalid: number;
    readonly distinct: number;
  };
}

export function planRow(
  op: Operation,
  raw: Readonly<Record<string, unknown>>,
): RowPlan & { input?: CleanInput } {
  if (Object.values(raw).every(isBlank)) return { kind: 'empty' };
  const checked = validate(op, raw);
  if (!checked.ok) return { kind: 'invalid', message: checked.message };
  return { kind: 'request', key: requestKey(op, checked.input), input: checked.input };
}

export function planBatch(op: Operation, rows: readonly Readonly<Record<string, unknown>>[]): BatchPlan {
  const plans: RowPlan[] = [];
  const distinct = new Map<string, CleanInput>();
  let empty = 0;
  let invalid = 0;
  for (const raw of rows) {
    const { input, ...plan } = planRow(op, raw);
    plans.push(plan);
    if (plan.kind === 'empty') empty++;
    else if (plan.kind === 'invalid') invalid++;
    else if (input && !distinct.has(plan.key)) distinct.set(plan.key, input);
  }
  return { rows: plans, distinct, counts: { rows: rows.length, empty, invalid, distinct: distinct.size } };
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}
