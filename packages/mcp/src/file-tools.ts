// quote and enrich_file: a file through the shared bulk engine, never spending without a
// confirmation. A quote (or enrich_file without a token) reads the file and the answer cache,
// sends nothing, and returns the plan with a one-time token; only enrich_file with that token (the
// same operation, path, out and map, within TOKEN_TTL_MS) runs it, after the person answered an
// elicitation where the client supports one. The run never spends more than the plan said: the
// plan's figure is the run's budget, and a plan that grew in between is quoted again instead.
import { randomUUID } from 'node:crypto';
import {
  BulkError,
  type BulkPlan,
  cacheNamespace,
  checkRunFiles,
  createHttpTransport,
  defaultOutputPath,
  OutputInTheWay,
  planBulk,
  runBulk,
  type StoreFront,
} from '@enrich/bulk';
import {
  abortableSleep,
  type Breakdown,
  breakdownText,
  DEFAULT_RETRY_POLICY,
  LIKELY_NOTE,
  OPERATIONS,
  type Operation,
  outputColumns,
} from '@enrich/core';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AllowedFolders } from './allowed-folders.js';
import type { Budget } from './budget.js';
import { type Config, MAX_AGE_MS, STOP_GRACE_MS } from './config.js';
import { ask } from './confirm.js';
import type { Connection } from './connection.js';
import type { Privacy } from './privacy.js';
import { errorResult } from './reading.js';
import type { SharedStores } from './shared-stores.js';
import type { SpendLedger } from './spend-ledger.js';
import { operationNamed, toolName } from './tools.js';

/** How long a quote's token may be used. */
export const TOKEN_TTL_MS = 15 * 60 * 1000;

interface FileRequest {
  readonly op: Operation;
  readonly inPath: string;
  readonly outPath: string;
  readonly map: Readonly<Record<string, string>>;
}

interface Quote {
  readonly request: FileRequest;
  readonly plan: BulkPlan;
  readonly expires: number;
}

export interface FileToolsDeps {
  readonly server: Server;
  readonly config: Config;
  readonly connection: Connection;
  readonly budget: Budget;
  /** Where every paid answer of a run is recorded (the input's base name with it). */
  readonly ledger: SpendLedger;
  readonly scrub: (text: string) => string;
  /** The folders the file tools may use (the client's roots, or --allow-dir). */
  readonly folders: AllowedFolders;
  /** The team's shared answer store, if one is configured: a plan counts what it holds, a run claims there. */
  readonly stores?: SharedStores | undefined;
  /** The suppression lists (privacy.ts): rows of forgotten people are not sent. */
  readonly privacy?: Privacy | undefined;
  /** Aborted when the server stops: a run sends nothing more and ends within a second. */
  readonly stop: AbortSignal;
}

const sleep = (ms: number) => abortableSleep(ms);

export class FileTools {
  private readonly quotes = new Map<string, Quote>();

  constructor(private readonly deps: FileToolsDeps) {}

  async quote(args: Record<string, unknown>): Promise<CallToolResult> {
    const request = await this.request(args);
    if (typeof request === 'string') return errorResult(request);
    return this.quoted(request, '');
  }

  async enrichFile(args: Record<string, unknown>): Promise<CallToolResult> {
    const request = await this.request(args);
    if (typeof request === 'string') return errorResult(request);
    const token = typeof args.token === 'string' ? args.token : undefined;
    if (!token) return this.quoted(request, 'Not run: enrich_file runs only with the token of a quote. ');
    const quote = this.quotes.get(token);
    // One use only, whatever happens next.
    this.quotes.delete(token);
    if (!quote || quote.expires < Date.now() || !sameRequest(quote.request, request)) {
      return this.quoted(
        request,
        `Not run: that token is unknown, used, expired or for another file, operation or mapping. Nothing was spent. `,
      );
    }
    const { budget, connection } = this.deps;
    if (!connection.settings) return errorResult(connection.keyProblem ?? 'No API key. Nothing was sent.');
    const plan = await this.plan(request);
    if (typeof plan === 'string') return errorResult(plan);
    if (plan.transactions > quote.plan.transactions) {
      return this.quoted(
        request,
        `Not run: the file or the cache changed since the quote, and it would now spend ${plan.transactions} instead of ${quote.plan.transactions}. Nothing was spent. `,
      );
    }
    const limit = quote.plan.transactions;
    if (!budget.reserve(limit)) {
      return errorResult(budget.refusal(limit), { 'enrich/outcome': 'budget' });
    }
    let settled = false;
    try {
      if (limit > 0) {
        const answer = await ask(
          this.deps.server,
          `Enrich ${request.inPath} with ${request.op.title}: ${plan.rows} rows, ${plan.distinct} distinct requests, ${plan.cached} already in the answer cache${inStoreText(plan)} (free). This spends up to ${limit} paid transaction${limit === 1 ? '' : 's'}. Go ahead?`,
        );
        if (answer.answer === 'no') {
          return errorResult('Not run: the person declined. Nothing was spent.', {
            'enrich/outcome': 'declined',
          });
        }
      }
      const summary = await this.run(request, limit);
      if (typeof summary === 'string') return errorResult(summary);
      budget.settle(limit, summary.transactions, summary.unanswered);
      settled = true;
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
    } finally {
      if (!settled) budget.settle(limit, 0);
    }
  }

  private async request(args: Record<string, unknown>): Promise<FileRequest | string> {
    const op = typeof args.operation === 'string' ? operationNamed(args.operation) : undefined;
    if (!op)
      return `operation must name one of the operations (${OPERATIONS.map(toolName).join(', ')}); got ${JSON.stringify(args.operation)}. Nothing was spent.`;
    if (typeof args.path !== 'string' || args.path.trim() === '')
      return 'path must name the file to enrich. Nothing was spent.';
    const input = await this.deps.folders.resolve(args.path, 'path');
    if ('problem' in input) return input.problem;
    const inPath = input.path;
    let outPath = defaultOutputPath(inPath, op);
    if (typeof args.out === 'string' && args.out.trim() !== '') {
      const output = await this.deps.folders.resolve(args.out, 'out');
      if ('problem' in output) return output.problem;
      outPath = output.path;
    }
    const map: Record<string, string> = {};
    if (args.map !== undefined) {
      if (args.map === null || typeof args.map !== 'object' || Array.isArray(args.map)) {
        return 'map must be an object of field -> column name. Nothing was spent.';
      }
      for (const [field, column] of Object.entries(args.map)) {
        if (typeof column !== 'string') return `map.${field} must be a column name. Nothing was spent.`;
        map[field] = column;
      }
    }
    return { op, inPath, outPath, map };
  }

  private async plan(request: FileRequest): Promise<BulkPlan | string> {
    const { config } = this.deps;
    const shared = await this.sharedStore(request.op);
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
        cachePath: this.deps.config.cachePath,
        namespace: cacheNamespace(request.op, this.deps.connection.bases),
        maxAgeMs: MAX_AGE_MS,
        overrides: request.map,
        sharedStore: shared,
        refuse: await this.deps.privacy?.refuse(),
      });
    } catch (error) {
      if (error instanceof BulkError || (error as NodeJS.ErrnoException).code === 'ENOENT') {
        return `${(error as Error).message}. Nothing was spent.`;
      }
      throw error;
    }
  }

  /** The shared store's front of the operation's service, none, or why it could not be opened. */
  private async sharedStore(op: Operation): Promise<StoreFront | undefined | string> {
    const opened = await this.deps.stores?.for(cacheNamespace(op, this.deps.connection.bases));
    if (opened === undefined) return undefined;
    return 'front' in opened ? opened.front : `Not run: ${opened.problem}. Nothing was spent.`;
  }

  private async quoted(request: FileRequest, prefix: string): Promise<CallToolResult> {
    const plan = await this.plan(request);
    if (typeof plan === 'string') return errorResult(prefix + plan);
    const token = randomUUID();
    const expires = Date.now() + TOKEN_TTL_MS;
    this.quotes.set(token, { request, plan, expires });
    const { budget } = this.deps;
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

  private async run(request: FileRequest, limit: number) {
    const { connection, config, scrub } = this.deps;
    if (!connection.settings) return 'No API key.';
    const shared = await this.sharedStore(request.op);
    if (typeof shared === 'string') return shared;
    const abandon = new AbortController();
    const spend = this.deps.ledger.recorder(request.op, connection.bases, request.inPath);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          return await runBulk(
            {
              op: request.op,
              inPath: request.inPath,
              outPath: request.outPath,
              cachePath: config.cachePath,
              ledgerPath: config.ledgerPath,
              // Starts from the pace of the last run against the service, and keeps this one's.
              pacePath: config.pacePath,
              namespace: cacheNamespace(request.op, connection.bases),
              maxAgeMs: MAX_AGE_MS,
              columns: outputColumns(request.op),
              overrides: request.map,
              scrub,
              allExtras: true,
              sharedStore: shared,
              refuse: await this.deps.privacy?.refuse(),
              abandon,
              graceMs: STOP_GRACE_MS,
              sender: {
                settings: connection.settings,
                transport: createHttpTransport({ timeoutMs: 30_000, signal: abandon.signal }),
                policy: DEFAULT_RETRY_POLICY,
                concurrency: 'auto',
                maxTransactions: limit,
                sleep,
                now: Date.now,
              },
            },
            { onPaid: (count) => spend.add(count), signal: this.deps.stop },
          );
        } catch (error) {
          if (error instanceof OutputInTheWay) {
            return `${error.message}. Name another file with out. Nothing was spent.`;
          }
          // The answer cache locked by another session for a moment: wait a little, then say so.
          if (error instanceof BulkError && /Another enrich run/.test(error.message) && attempt < 100) {
            await sleep(100);
            continue;
          }
          if (error instanceof BulkError) return `${error.message}. Nothing was spent.`;
          throw error;
        }
      }
    } finally {
      // What the run spent is written now, not in up to 2 s.
      spend.close();
    }
  }
}

function sameRequest(a: FileRequest, b: FileRequest): boolean {
  return (
    a.op.id === b.op.id &&
    a.inPath === b.inPath &&
    a.outPath === b.outPath &&
    JSON.stringify(Object.entries(a.map).sort()) === JSON.stringify(Object.entries(b.map).sort())
  );
}

/** The run's breakdown in words (core's), for the assistant to tell the person what came back. */
function whatCameBack(breakdown: Breakdown | undefined): string[] {
  if (!breakdown || breakdown.rows === 0) return [];
  const likely = breakdown.fields.some((f) => f.values.some((v) => v.meaning !== undefined));
  return ['What came back:', breakdownText(breakdown), likely ? `(${LIKELY_NOTE})` : ''];
}

/** ", 4 in the team's shared answer store" when the plan has a store. */
function inStoreText(plan: BulkPlan): string {
  return plan.store === undefined ? '' : ` and ${plan.inStore} in the team's shared answer store`;
}
