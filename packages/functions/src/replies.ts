// What each row gets back, the same in every protocol: a JSON object whose `status` is core's word
// for the row (`ok`, `no match`, `invalid: <rule>`, `error: <what>`, `paid, unreadable: <why>`) or
// `budget` (a cap refused it, nothing was sent), followed by the record's fields as core's reader
// keeps them (documented fields nested as the API sends them, then the undocumented ones under their
// dotted names), so that SQL can filter on status and read JSON_VALUE(r, '$.Name.FName').
import { type Operation, type Outcome, rowStatusOf, rowStatusText, validate } from '@enrich/core';

export type Reply = Readonly<Record<string, unknown>>;

/** The word of a row a budget refused: nothing was sent for it. */
export const BUDGET_STATUS = 'budget';

export function outcomeReply(outcome: Outcome): Reply {
  const { status } = rowStatusOf(outcome);
  if (outcome.kind !== 'record') return { status };
  const reply: Record<string, unknown> = { status, ...outcome.record };
  for (const [name, value] of Object.entries(outcome.extra)) {
    // A field the service added that is named as one we already have is kept beside it.
    reply[name in reply ? `${name} (as sent)` : name] = value;
  }
  return reply;
}

export function invalidReply(message: string): Reply {
  return { status: rowStatusText('invalid', message) };
}

/** A row with no value at all: invalid, saying what the operation needs (as the CLI writes it). */
export function blankReply(op: Operation): Reply {
  const empty = validate(op, {});
  return { status: rowStatusText('blank', empty.ok ? 'blank row' : `blank row (${empty.message})`) };
}

export function errorReply(message: string): Reply {
  return { status: rowStatusText('error', message) };
}

export const budgetReply: Reply = Object.freeze({ status: BUDGET_STATUS });
