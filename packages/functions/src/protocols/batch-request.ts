// What every protocol makes of a request before anything is bought: the operation, the rows as
// inputs (named fields), the query's budget if one was set, and how to wrap the replies in the
// engine's response; or a refusal (400) for what a retry cannot mend. Shared by the three protocols,
// so that an operation, a row's arguments and a budget are read by one rule each.
import { createHash } from 'node:crypto';
import { findOperation, OPERATIONS, type Operation } from '@enrich/core';
import type { BatchBudget } from '../batch-verdict.js';
import type { Reply } from '../replies.js';

export type BatchRequest =
  | {
      readonly kind: 'batch';
      readonly op: Operation;
      readonly rows: readonly Readonly<Record<string, unknown>>[];
      readonly budget?: BatchBudget;
      /** Ids for the log line (a request, query or batch id): never row data. */
      readonly trace: string;
      /** The engine's response body around the replies, one per row, in order. */
      readonly respond: (replies: readonly Reply[]) => unknown;
    }
  | { readonly kind: 'refused'; readonly message: string };

export const refused = (message: string): BatchRequest => ({ kind: 'refused', message });

const OPERATION_IDS = OPERATIONS.map((op) => op.id).join(', ');

/** The operation a caller named (the CLI's spelling, `phone-lookup`), or a refusal naming where it came from. */
export function operationNamed(name: unknown, from: string): Operation | string {
  if (typeof name !== 'string' || name.trim() === '')
    return `${from} must name the operation, one of: ${OPERATION_IDS}`;
  const op = findOperation(name.trim());
  return (
    op ?? `${from} names no operation of this service; got "${name.slice(0, 40)}". One of: ${OPERATION_IDS}`
  );
}

/**
 * A row's arguments as the operation's input fields, in the order `enrich <operation> --help` lists
 * them (core's catalog): Phone Lookup takes (Phone), TCPA Verify (phone, last_name). Fewer arguments
 * than fields leave the last ones out; more is a function declared for another operation.
 */
export function positionalInput(op: Operation, args: readonly unknown[]): Record<string, unknown> | string {
  if (args.length > op.inputs.length)
    return `${op.id} takes at most ${op.inputs.length} argument${op.inputs.length === 1 ? '' : 's'} (${op.inputs
      .map((f) => f.name)
      .join(', ')}, in this order); a call has ${args.length}`;
  const input: Record<string, unknown> = {};
  args.forEach((value, i) => {
    const field = op.inputs[i];
    if (field && value !== null && value !== undefined) input[field.name] = value;
  });
  return input;
}

const MAX_ID_CHARS = 200;

/**
 * A query's budget from what the caller set (`max_transactions` as text or a number) and the id
 * that names the query in the store (one per engine and query); undefined when none is set.
 */
export function budgetOf(
  limit: unknown,
  queryId: string | undefined,
  said: string,
): BatchBudget | undefined | string {
  if (limit === undefined || limit === null || limit === '') return undefined;
  const text = String(limit).trim();
  if (!/^[0-9]{1,15}$/.test(text))
    return `${said} must be a whole number of transactions, 0 or more; got "${text.slice(0, 20)}"`;
  if (queryId === undefined || queryId.trim() === '')
    return `${said} needs the query's id, to count its spending across batches`;
  const id =
    queryId.length > MAX_ID_CHARS ? `sha256:${createHash('sha256').update(queryId).digest('hex')}` : queryId;
  return { id, limit: Number(text), said: `${said} ${text}` };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
