// BigQuery remote functions (https://cloud.google.com/bigquery/docs/remote-functions, "Input
// format" and "Output format"): BigQuery POSTs
//   {"requestId", "caller", "sessionUser", "userDefinedContext": {...}, "calls": [[arg, ...], ...]}
// and takes back {"replies": [...]} with one reply per call, in order, or {"errorMessage"} (under
// 1 KB) with another status. The operation is userDefinedContext.operation (set with
// user_defined_context = [("operation", "phone-lookup")]); a budget for the query is
// userDefinedContext.max_transactions, counted per job (`caller`, the job's full resource name).
// sessionUser is a person's e-mail address: it is never read or logged.
import {
  type BatchRequest,
  budgetOf,
  isObject,
  operationNamed,
  positionalInput,
  refused,
} from './batch-request.js';

export function bigQueryRequest(body: unknown): BatchRequest {
  if (!isObject(body) || !Array.isArray(body.calls))
    return refused(
      'The body must be a BigQuery remote function request: {"requestId", "caller", "calls": [[...], ...]}',
    );
  const context = isObject(body.userDefinedContext) ? body.userDefinedContext : {};
  const op = operationNamed(context.operation, 'user_defined_context "operation"');
  if (typeof op === 'string') return refused(op);
  const caller = typeof body.caller === 'string' ? body.caller : undefined;
  const budget = budgetOf(context.max_transactions, caller, 'user_defined_context "max_transactions"');
  if (typeof budget === 'string') return refused(budget);
  const rows: Record<string, unknown>[] = [];
  for (const call of body.calls) {
    if (!Array.isArray(call)) return refused('Each element of "calls" must be an array of arguments');
    const input = positionalInput(op, call);
    if (typeof input === 'string') return refused(input);
    rows.push(input);
  }
  const requestId = typeof body.requestId === 'string' ? body.requestId.slice(0, 80) : '?';
  return {
    kind: 'batch',
    op,
    rows,
    ...(budget ? { budget: { ...budget, id: `bigquery:${budget.id}` } } : {}),
    trace: `requestId ${requestId}`,
    respond: (replies) => ({ replies }),
  };
}
