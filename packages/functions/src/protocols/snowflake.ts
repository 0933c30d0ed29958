// Snowflake external functions (https://docs.snowflake.com/sql-reference/external-functions-data-format):
// Snowflake POSTs {"data": [[row, arg, ...], ...]} (row numbers from 0, then the arguments) and takes
// back {"data": [[row, value], ...]}, the same row numbers in the same order, with 200 (202 would be
// the asynchronous kind, not used here). Headers: sf-external-function-current-query-id (the query),
// sf-external-function-query-batch-id (the batch; "can also be used as an idempotency token if
// requests are retried"), and the function's HEADERS, which Snowflake sends as `sf-custom-<name>`
// (CREATE EXTERNAL FUNCTION): `operation` (or the path /snowflake/<operation>) and
// `max-transactions`, a budget for the query (header names cannot hold an underscore).
import type { IncomingHttpHeaders } from 'node:http';
import {
  type BatchRequest,
  budgetOf,
  isObject,
  operationNamed,
  positionalInput,
  refused,
} from './batch-request.js';

export const SNOWFLAKE_HEADERS = {
  operation: 'sf-custom-operation',
  maxTransactions: 'sf-custom-max-transactions',
  queryId: 'sf-external-function-current-query-id',
  batchId: 'sf-external-function-query-batch-id',
} as const;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/** The batch id: what makes a resend of a batch the same batch (see functions-server.ts). */
export function snowflakeBatchId(headers: IncomingHttpHeaders): string | undefined {
  return header(headers, SNOWFLAKE_HEADERS.batchId);
}

export function snowflakeRequest(
  body: unknown,
  headers: IncomingHttpHeaders,
  pathOperation: string | undefined,
): BatchRequest {
  if (!isObject(body) || !Array.isArray(body.data))
    return refused('The body must be a Snowflake external function request: {"data": [[row, args...], ...]}');
  const fromHeader = header(headers, SNOWFLAKE_HEADERS.operation);
  if (fromHeader && pathOperation && fromHeader !== pathOperation)
    return refused(
      `The header ${SNOWFLAKE_HEADERS.operation} (${fromHeader.slice(0, 40)}) and the path (/snowflake/${pathOperation.slice(0, 40)}) name two operations`,
    );
  const op = operationNamed(
    fromHeader ?? pathOperation,
    `The header ${SNOWFLAKE_HEADERS.operation} (HEADERS = ('operation' = '...')) or the path /snowflake/<operation>`,
  );
  if (typeof op === 'string') return refused(op);
  const queryId = header(headers, SNOWFLAKE_HEADERS.queryId);
  const budget = budgetOf(
    header(headers, SNOWFLAKE_HEADERS.maxTransactions),
    queryId,
    `The header ${SNOWFLAKE_HEADERS.maxTransactions}`,
  );
  if (typeof budget === 'string') return refused(budget);
  const numbers: unknown[] = [];
  const rows: Record<string, unknown>[] = [];
  for (const row of body.data) {
    if (!Array.isArray(row) || !Number.isSafeInteger(row[0]))
      return refused('Each element of "data" must be an array: the row number, then the arguments');
    const input = positionalInput(op, row.slice(1));
    if (typeof input === 'string') return refused(input);
    numbers.push(row[0]);
    rows.push(input);
  }
  const batchId = snowflakeBatchId(headers);
  return {
    kind: 'batch',
    op,
    rows,
    ...(budget ? { budget: { ...budget, id: `snowflake:${budget.id}` } } : {}),
    trace: `query ${queryId?.slice(0, 80) ?? '?'} batch ${batchId?.slice(0, 120) ?? '?'}`,
    respond: (replies) => ({ data: replies.map((reply, i) => [numbers[i], reply]) }),
  };
}
