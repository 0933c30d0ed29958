// enrich_file: a file through the shared bulk engine, never spending without a confirmation. Without
// a token it is a quote (file-plan.ts); with a quote's token (the same operation, path, out and map,
// within its time) the file is planned again, the budget holds the quote's figure, the person is
// asked where the client supports elicitation, and the run (file-run.ts) spends no more than the
// quote said: a plan that grew in between is quoted again instead.
import type { BulkPlan, BulkSummary } from '@enrich/bulk';
import { type Breakdown, breakdownText, LIKELY_NOTE } from '@enrich/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Budget } from '../budget.js';
import { ask } from '../confirm.js';
import { errorResult } from '../reading.js';
import type { ToolContext } from './context.js';
import { inStoreText, planFile, quoted } from './file-plan.js';
import { FILE_PROPERTIES, type FileRequest, fileRequest, sameRequest } from './file-request.js';
import { runFile } from './file-run.js';
import { PAID, type ToolDefinition, type ToolRegistry } from './registry.js';

const ENRICH_FILE_TOOL: ToolDefinition = {
  name: 'enrich_file',
  title: 'Enrich a file',
  description:
    "Enriches every row of a CSV, .xlsx or JSON Lines file with one operation and writes the enriched file (the input's columns, the operation's, and a status). Paid: 1 transaction per distinct valid request not already cached, never more than the quote said. Without a token it returns the quote and a token, spending nothing; call it again with that token (and the same operation, path, out and map) to run it. Use it for more than a few inputs.",
  inputSchema: {
    type: 'object',
    properties: {
      ...FILE_PROPERTIES,
      token: {
        type: 'string',
        description: 'The one-time token of a quote (or of a first enrich_file call)',
      },
    },
    required: ['operation', 'path'],
    additionalProperties: false,
  },
  annotations: { title: 'Enrich a file', ...PAID, idempotentHint: false },
};

export function registerEnrichFile(tools: ToolRegistry, ctx: ToolContext): void {
  tools.register(ENRICH_FILE_TOOL, (args) => enrichFile(args, ctx));
}

async function enrichFile(args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult> {
  const request = await fileRequest(args, ctx.folders);
  if (typeof request === 'string') return errorResult(request);
  const token = typeof args.token === 'string' ? args.token : undefined;
  if (!token) return quoted(request, 'Not run: enrich_file runs only with the token of a quote. ', ctx);
  const quote = ctx.quotes.take(token);
  if (!quote || !sameRequest(quote.request, request)) {
    return quoted(
      request,
      `Not run: that token is unknown, used, expired or for another file, operation or mapping. Nothing was spent. `,
      ctx,
    );
  }
  const { budget, connection } = ctx;
  if (!connection.settings) return errorResult(connection.keyProblem ?? 'No API key. Nothing was sent.');
  const plan = await planFile(request, ctx);
  if (typeof plan === 'string') return errorResult(plan);
  if (plan.transactions > quote.plan.transactions) {
    return quoted(
      request,
      `Not run: the file or the cache changed since the quote, and it would now spend ${plan.transactions} instead of ${quote.plan.transactions}. Nothing was spent. `,
      ctx,
    );
  }
  const limit = quote.plan.transactions;
  if (!budget.reserve(limit)) {
    return errorResult(budget.refusal(limit), { 'enrich/outcome': 'budget' });
  }
  let settled = false;
  try {
    if (limit > 0 && (await declined(request, plan, limit, ctx))) {
      return errorResult('Not run: the person declined. Nothing was spent.', {
        'enrich/outcome': 'declined',
      });
    }
    const summary = await runFile(request, limit, ctx);
    if (typeof summary === 'string') return errorResult(summary);
    budget.settle(limit, summary.transactions, summary.unanswered);
    settled = true;
    return runResult(request, summary, limit, budget);
  } finally {
    if (!settled) budget.settle(limit, 0);
  }
}

/** Asks the person (elicitation, where the client supports it) before a run that may spend. */
async function declined(
  request: FileRequest,
  plan: BulkPlan,
  limit: number,
  ctx: ToolContext,
): Promise<boolean> {
  const answer = await ask(
    ctx.server,
    `Enrich ${request.inPath} with ${request.op.title}: ${plan.rows} rows, ${plan.distinct} distinct requests, ${plan.cached} already in the answer cache${inStoreText(plan)} (free). This spends up to ${limit} paid transaction${limit === 1 ? '' : 's'}. Go ahead?`,
  );
  return answer.answer === 'no';
}

function runResult(
  request: FileRequest,
  summary: BulkSummary,
  limit: number,
  budget: Budget,
): CallToolResult {
  const text = [
    `Enriched ${summary.input} with ${request.op.title} into ${summary.output}.`,
    `Rows ${summary.rows}: ok ${summary.ok}, no match ${summary.noMatch}, invalid ${summary.invalid}, errors ${summary.errors}, not sent ${summary.notSent}.`,
    `Distinct requests ${summary.distinct}, ${summary.fromCache} answered free from the answer cache${
      summary.store === undefined ? '' : `, ${summary.fromStore} from the team's shared answer store`
    }; transactions spent: ${summary.transactions} (quoted: ${limit}).`,
    summary.stopped ? `The run stopped sending: ${summary.stopped}.` : '',
    budget.sentence(),
    ...whatCameBack(summary.breakdown),
  ].filter(Boolean);
  return {
    ...(summary.completed ? {} : { isError: true }),
    content: [{ type: 'text', text: text.join('\n') }],
    structuredContent: {
      output: summary.output,
      rows: summary.rows,
      ok: summary.ok,
      noMatch: summary.noMatch,
      invalid: summary.invalid,
      errors: summary.errors,
      notSent: summary.notSent,
      distinct: summary.distinct,
      fromCache: summary.fromCache,
      ...(summary.store === undefined ? {} : { fromStore: summary.fromStore }),
      transactions: summary.transactions,
      quoted: limit,
      completed: summary.completed,
      ...(summary.breakdown ? { breakdown: summary.breakdown } : {}),
    },
    _meta: { 'enrich/transactionsSpent': summary.transactions },
  };
}

/** The run's breakdown in words (core's), for the assistant to tell the person what came back. */
function whatCameBack(breakdown: Breakdown | undefined): string[] {
  if (!breakdown || breakdown.rows === 0) return [];
  const likely = breakdown.fields.some((f) => f.values.some((v) => v.meaning !== undefined));
  return ['What came back:', breakdownText(breakdown), likely ? `(${LIKELY_NOTE})` : ''];
}
