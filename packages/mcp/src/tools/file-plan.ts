// A file's plan, sending nothing: bulk's planBulk reads the file and the answer cache (and the
// shared store, when there is one) and says what a run would spend. A quote is that plan in words,
// with a one-time token (quotes.ts) that enrich_file takes for the same request.
import {
  BulkError,
  type BulkPlan,
  cacheNamespace,
  checkRunFiles,
  planBulk,
  type StoreFront,
} from '@enrich/bulk';
import type { Operation } from '@enrich/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorResult } from '../reading.js';
import type { ToolContext } from './context.js';
import type { FileRequest } from './file-request.js';
import { toolName } from './names.js';
import { TOKEN_TTL_MS } from './quotes.js';

/** The plan of a request, or why there is none (nothing was spent). */
export async function planFile(request: FileRequest, ctx: ToolContext): Promise<BulkPlan | string> {
  const { config } = ctx;
  const shared = await sharedStoreFor(request.op, ctx);
  if (typeof shared === 'string') return shared;
  try {
    // The files a run must never replace (the cache, the ledger, the input, a journal or a lock,
    // a device), refused at the quote already: the CLI's rules (bulk's file-guard.ts).
    checkRunFiles({
      inPath: request.inPath,
      outPath: request.outPath,
      cachePath: config.cachePath,
      ledgerPath: config.ledgerPath,
    });
    return await planBulk({
      op: request.op,
      inPath: request.inPath,
      cachePath: config.cachePath,
      maxAgeMs: ctx.maxAgeMs,
      // Whose answers: bulk names the namespace from the bases the run's requests go to.
      bases: ctx.connection.bases,
      overrides: request.map,
      sharedStore: shared,
      refuse: await ctx.privacy?.refuse(),
    });
  } catch (error) {
    if (error instanceof BulkError || (error as NodeJS.ErrnoException).code === 'ENOENT') {
      return `${(error as Error).message}. Nothing was spent.`;
    }
    throw error;
  }
}

/** The shared store's front of the operation's service, none, or why it could not be opened. */
export async function sharedStoreFor(
  op: Operation,
  ctx: ToolContext,
): Promise<StoreFront | undefined | string> {
  const opened = await ctx.stores?.for(cacheNamespace(op, ctx.connection.bases));
  if (opened === undefined) return undefined;
  return 'front' in opened ? opened.front : `Not run: ${opened.problem}. Nothing was spent.`;
}

/** A quote's result: the plan in words and figures, and its token (`prefix` says why, when not asked for). */
export async function quoted(
  request: FileRequest,
  prefix: string,
  ctx: ToolContext,
): Promise<CallToolResult> {
  const plan = await planFile(request, ctx);
  if (typeof plan === 'string') return errorResult(prefix + plan);
  const { token, expires } = ctx.quotes.give(request, plan);
  const { budget } = ctx;
  const invalid = plan.invalidExamples.map((e) => `row ${e.row}: ${e.message}`).join('; ');
  const overBudget = budget.left !== undefined && plan.transactions > budget.left;
  const text = [
    `${prefix}Plan for ${request.op.title} on ${request.inPath} (${plan.found}), into ${request.outPath}:`,
    `${plan.rows} rows (${plan.invalid} invalid or blank, not sent${invalid ? `: ${invalid}` : ''}), ${plan.distinct} distinct requests, ${plan.cached} already in the answer cache${inStoreText(plan)} (free).`,
    `Transactions to spend: ${plan.transactions}.`,
    `Columns: ${Object.entries(plan.mapping)
      .map(([field, column]) => `${field} <- ${column}`)
      .join(', ')}.`,
    overBudget
      ? `This is more than the ${budget.left} transactions left of this server's budget: enrich_file would refuse it. Quote a smaller file (fewer rows), or restart the server with a bigger --max-transactions. Nothing has been spent.`
      : `To run it, call enrich_file with the same operation (${toolName(request.op)}), path, out and map, and token "${token}" (valid ${TOKEN_TTL_MS / 60_000} minutes, once). Nothing has been spent.`,
  ];
  return {
    content: [{ type: 'text', text: text.join('\n') }],
    structuredContent: {
      operation: toolName(request.op),
      path: request.inPath,
      out: request.outPath,
      rows: plan.rows,
      invalid: plan.invalid,
      distinct: plan.distinct,
      cached: plan.cached,
      ...(plan.store === undefined ? {} : { inStore: plan.inStore }),
      transactions: plan.transactions,
      mapping: plan.mapping,
      token,
      expiresAt: new Date(expires).toISOString(),
    },
    _meta: { 'enrich/transactionsSpent': 0 },
  };
}

/** " and 4 in the team's shared answer store" when the plan has a store. */
export function inStoreText(plan: BulkPlan): string {
  return plan.store === undefined ? '' : ` and ${plan.inStore} in the team's shared answer store`;
}
