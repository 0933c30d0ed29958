// POST /rows, for anything else that can POST JSON (Databricks' http_request, a Spark job, a
// script): {"operation": "phone-lookup", "rows": [{"Phone": "..."}, ...]} in, {"results": [...]}
// out, one result per row, in order. Each row names its fields as the API does (matched loosely
// by core: `phone` finds Phone). A budget for a job: "max_transactions" with the "query_id" that its
// requests share.
import { type BatchRequest, budgetOf, isObject, operationNamed, refused } from './batch-request.js';

export function rowsRequest(body: unknown): BatchRequest {
  if (!isObject(body) || !Array.isArray(body.rows))
    return refused('The body must be {"operation": "phone-lookup", "rows": [{"Phone": "..."}, ...]}');
  const op = operationNamed(body.operation, '"operation"');
  if (typeof op === 'string') return refused(op);
  const queryId = typeof body.query_id === 'string' ? body.query_id : undefined;
  const budget = budgetOf(body.max_transactions, queryId, '"max_transactions"');
  if (typeof budget === 'string') return refused(budget);
  if (!body.rows.every(isObject)) return refused('Each element of "rows" must be an object of input fields');
  return {
    kind: 'batch',
    op,
    rows: body.rows as Record<string, unknown>[],
    ...(budget ? { budget: { ...budget, id: `rows:${budget.id}` } } : {}),
    trace: queryId ? `query ${queryId.slice(0, 80)}` : '',
    respond: (results) => ({ results }),
  };
}
