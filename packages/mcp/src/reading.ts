// A tool's result from an outcome: structuredContent holds the record (documented fields as the
// tolerant reader kept them, then the fields the API description does not list, under their dotted
// names), and the text a short reading of it, with the likely meanings of coded values. A no match
// is a result (an empty record); errors are tool errors (isError) with a message for people.

import {
  type CleanInput,
  flattenRecord,
  inputText,
  likelyMeaning,
  type Operation,
  type Outcome,
  outputColumns,
} from '@enrich/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface Cost {
  /** Answered from the answer cache: nothing was sent, nothing spent. */
  readonly fromCache: boolean;
  /** Of those, from the team's shared answer store: another client bought it. */
  readonly fromStore?: boolean;
  /** Answered by the same question asked by another call at the same moment: nothing spent. */
  readonly shared?: boolean;
  /** Transactions this call spent (0 or 1). */
  readonly spent: number;
  /** The server's spend and budget, in words. */
  readonly budget: string;
}

function costText(cost: Cost): string {
  if (cost.shared)
    return `Answered by the same question asked at the same moment by another call: free, no transaction spent (${cost.budget}).`;
  if (cost.fromStore)
    return `Answered from the team's shared answer store (another client bought it): free, no transaction spent (${cost.budget}).`;
  return cost.fromCache
    ? `Answered from the answer cache: free, no transaction spent (${cost.budget}).`
    : `${cost.spent === 1 ? 'This call spent 1 transaction' : 'This call spent nothing'} (${cost.budget}).`;
}

function meta(outcome: string, cost: Cost): Record<string, unknown> {
  return {
    'enrich/outcome': outcome,
    'enrich/fromCache': cost.fromCache,
    ...(cost.fromStore ? { 'enrich/fromStore': true } : {}),
    ...(cost.shared ? { 'enrich/shared': true } : {}),
    'enrich/transactionsSpent': cost.spent,
  };
}

export function errorResult(text: string, extra: Record<string, unknown> = {}): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text }],
    _meta: { 'enrich/transactionsSpent': 0, ...extra },
  };
}

export function outcomeResult(
  op: Operation,
  input: CleanInput,
  outcome: Outcome,
  cost: Cost,
): CallToolResult {
  const head = `${op.title} for ${inputText(input)}`;
  switch (outcome.kind) {
    case 'record': {
      const record: Record<string, unknown> = { ...outcome.record };
      const extra = outcome.extra ?? {};
      for (const [name, value] of Object.entries(extra))
        record[name in record ? `${name} (as sent)` : name] = value;
      const lines = [`${head}: a record.`, ...readRecord(op, outcome.record)];
      const extraNames = Object.keys(extra);
      if (extraNames.length > 0) {
        lines.push(
          `Fields not in the API description (kept as they came): ${extraNames
            .map((name) => `${name}: ${String(extra[name] ?? '')}`)
            .join('; ')}`,
        );
      }
      const mismatches = outcome.mismatches ?? [];
      if (mismatches.length > 0) {
        lines.push(
          `${mismatches.length} field(s) not as documented: ${mismatches.map((m) => m.detail).join('; ')}`,
        );
      }
      lines.push(costText(cost));
      return {
        content: [{ type: 'text', text: lines.join('\n') }],
        structuredContent: record,
        _meta: meta('record', cost),
      };
    }
    case 'no-match':
      return {
        content: [
          { type: 'text', text: `${head}: no match (nothing was found; not an error). ${costText(cost)}` },
        ],
        structuredContent: {},
        _meta: meta('no-match', cost),
      };
    case 'unreadable':
      return {
        isError: true,
        content: [
          {
            type: 'text',
            text: `${head}: paid, unreadable: the service answered 200 (a transaction was spent) but ${outcome.reason}. What arrived is kept in the answer cache and is not asked again automatically: asking again would cost one more transaction. ${costText(cost)}`,
          },
        ],
        _meta: meta('unreadable', cost),
      };
    case 'error': {
      if (outcome.error.code === 'too-many-results') {
        // A 440 is an answer (paid): too many records match. Not a failure of the call.
        return {
          content: [{ type: 'text', text: `${head}: no match: ${outcome.error.message} ${costText(cost)}` }],
          structuredContent: {},
          _meta: meta('too-many-results', cost),
        };
      }
      return {
        isError: true,
        content: [{ type: 'text', text: `${head}: ${outcome.error.message} ${costText(cost)}` }],
        _meta: { ...meta('error', cost), 'enrich/error': outcome.error.code },
      };
    }
  }
}

/** One line per filled output column, with the likely meaning of a coded value. */
function readRecord(op: Operation, record: Parameters<typeof flattenRecord>[1]): string[] {
  const columns = outputColumns(op);
  const values = flattenRecord(op, record, columns);
  const lines: string[] = [];
  columns.forEach((column, i) => {
    const value = values[i];
    if (value === null || value === undefined || value === '') return;
    const likely = likelyMeaning(op, column, value);
    lines.push(`${column}: ${String(value)}${likely ? ` (likely: ${likely})` : ''}`);
  });
  if (lines.length === 0) lines.push('(every field empty)');
  return lines;
}
