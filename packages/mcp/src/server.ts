// The MCP server: the tools of tools.ts over the low-level SDK Server (the schemas are JSON Schema
// generated from the catalog, so no zod restatement), answering paid calls with care: validate
// first (free), then the shared answer cache (free), then the budget and, past the threshold, the
// person's confirmation, and only then one request through core's client and retry policy.

import { cacheNamespace } from '@enrich/bulk';
import {
  type CleanInput,
  callOperation,
  checkKey,
  DEFAULT_RETRY_POLICY,
  isPaid,
  OPERATIONS,
  type Operation,
  type Outcome,
  PERMITTED_USE,
  requestKey,
  type Transport,
  validate,
} from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AnswerCache } from './answer-cache.js';
import { Budget } from './budget.js';
import { type Config, MAX_AGE_MS } from './config.js';
import { ask } from './confirm.js';
import type { Connection } from './connection.js';
import { FileTools } from './file-tools.js';
import { errorResult, outcomeResult } from './reading.js';
import { SpendLedger } from './spend-ledger.js';
import { allTools, COST_TEXT, toolName } from './tools.js';
import { mcpVersion } from './version.js';

/** One attempt's deadline, as the CLI's default --timeout. */
const TIMEOUT_MS = 30_000;

export interface ServerDeps {
  readonly config: Config;
  readonly connection: Connection;
  readonly scrub: (text: string) => string;
  readonly log: (text: string) => void;
  /** The transport of single calls (core's fetch transport: no redirect followed, one deadline). */
  readonly transport?: Transport;
}

export const INSTRUCTIONS = `Tools for a contact-data enrichment API: ${OPERATIONS.map(toolName).join(', ')}. ${COST_TEXT} Before calling an operation for many inputs, prefer one call per distinct input and check what was spent with the free spend tool; for a file, use quote (free) then enrich_file with the quote's token. check_key is free. ${PERMITTED_USE}`;

export interface EnrichServer {
  readonly server: Server;
  /** Resolves when no tool call is in progress (so that closing never cuts an answer being kept). */
  idle(): Promise<void>;
}

export function createServer(deps: ServerDeps): EnrichServer {
  const { config, connection, log } = deps;
  const server = new Server(
    { name: 'enrich-mcp', title: 'Enrichment API', version: mcpVersion() },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const cache = new AnswerCache({ path: config.cachePath, maxAgeMs: MAX_AGE_MS, scrub: deps.scrub, log });
  const budget = new Budget(config.maxTransactions);
  const transport = deps.transport ?? createFetchTransport({ timeoutMs: TIMEOUT_MS });
  const ledger = new SpendLedger(config.ledgerPath, log);
  const files = new FileTools({ server, config, connection, budget, ledger, scrub: deps.scrub });
  let dontAskAgain = false;
  const tools = allTools();

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  const inProgress = new Set<Promise<CallToolResult>>();
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    // Everything returned passes the key scrubber too: a service that echoes the key back in a
    // record must not hand it to the model.
    const call = handle(request.params.name, request.params.arguments).then(
      (result) => JSON.parse(deps.scrub(JSON.stringify(result))) as CallToolResult,
    );
    inProgress.add(call);
    void call.finally(() => inProgress.delete(call));
    return call;
  });

  async function handle(name: string, given: Record<string, unknown> | undefined): Promise<CallToolResult> {
    const args = given ?? {};
    try {
      if (name === 'check_key') return await keyCheck();
      if (name === 'spend') return spendResult();
      if (name === 'quote') return await files.quote(args);
      if (name === 'enrich_file') return await files.enrichFile(args);
      const op = OPERATIONS.find((o) => toolName(o) === name);
      if (!op) return errorResult(`There is no tool named ${name}.`);
      return await callOne(op, args);
    } catch (error) {
      log(`${name}: ${(error as Error).stack ?? String(error)}`);
      return errorResult(`${name} failed: ${(error as Error).message}`);
    }
  }

  async function callOne(op: Operation, args: Record<string, unknown>): Promise<CallToolResult> {
    const checked = validate(op, args);
    if (!checked.ok) {
      const fields = [...new Set(checked.issues.map((i) => i.field))];
      return errorResult(
        `Invalid input, not sent, no transaction spent: ${checked.message}. (${fields.length === 1 ? 'Field' : 'Fields'}: ${fields.join(', ')}.)`,
        { 'enrich/outcome': 'invalid', 'enrich/invalid': checked.issues },
      );
    }
    const key = requestKey(op, checked.input);
    const namespace = cacheNamespace(op, connection.bases);
    const cached = cache.get(namespace, key);
    if (cached) {
      budget.fromCache++;
      return outcomeResult(op, checked.input, cached, {
        fromCache: true,
        spent: 0,
        budget: budget.describe(),
      });
    }
    if (!connection.settings) return errorResult(connection.keyProblem ?? 'No API key. Nothing was sent.');
    if (!budget.reserve()) {
      return errorResult(
        `Refused before sending: the budget of this server (${budget.max} transaction${budget.max === 1 ? '' : 's'}, --max-transactions or ENRICH_MAX_TRANSACTIONS) is spent. Nothing was sent and nothing spent. Answers already bought are still answered free; restart the server with a bigger budget to spend more.`,
        { 'enrich/outcome': 'budget' },
      );
    }
    let outcome: Outcome | undefined;
    try {
      if (budget.committed > config.confirmAbove && !dontAskAgain) {
        const answer = await ask(
          server,
          `${op.title} for ${describe(checked.input)} spends 1 paid transaction (${budget.spent} spent by this server so far${
            budget.max === undefined ? '' : `, budget ${budget.max}`
          }). Spend it?`,
          true,
        );
        if (answer.answer === 'no') {
          return errorResult('Not sent: the person declined to spend a transaction. Nothing was spent.', {
            'enrich/outcome': 'declined',
          });
        }
        if (answer.dontAskAgain) dontAskAgain = true;
      }
      const report = await callOperation(op, checked.input, {
        transport,
        settings: connection.settings,
        policy: DEFAULT_RETRY_POLICY,
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        now: Date.now,
        onRetry: ({ delayMs, outcome: o }) =>
          log(
            `${op.title}: ${o.kind === 'error' ? o.error.message : ''} Trying again in ${(delayMs / 1000).toFixed(1)} s.`,
          ),
      });
      outcome = report.outcome;
    } finally {
      const paid = outcome !== undefined && isPaid(outcome) ? 1 : 0;
      const unanswered = outcome?.kind === 'error' && outcome.error.code === 'unanswered' ? 1 : 0;
      budget.settle(1, paid, unanswered);
    }
    if (!outcome) return errorResult(`${op.title}: no answer. Nothing was spent.`);
    const paid = isPaid(outcome);
    if (paid) {
      ledger.recordOne(op, connection.bases);
      await cache.put(namespace, key, outcome);
    }
    return outcomeResult(op, checked.input, outcome, {
      fromCache: false,
      spent: paid ? 1 : 0,
      budget: budget.describe(),
    });
  }

  async function keyCheck(): Promise<CallToolResult> {
    if (!connection.settings) return errorResult(connection.keyProblem ?? 'No API key.');
    const report = await checkKey(connection.settings, createFetchTransport({ timeoutMs: TIMEOUT_MS }));
    if (!report.ok) return errorResult(`${report.message} Nothing was sent.`);
    const lines = report.results.map(
      (r) =>
        `${r.base}: ${r.verdict === 'accepted' ? 'key accepted' : r.verdict === 'refused' ? 'KEY REFUSED' : r.verdict}. ${r.detail}`,
    );
    const refused = report.results.some((r) => r.verdict !== 'accepted');
    return {
      ...(refused ? { isError: true } : {}),
      content: [{ type: 'text', text: `${lines.join('\n')}\nFree: no transaction spent.` }],
      structuredContent: {
        results: report.results.map(({ base, verdict, detail }) => ({ base, verdict, detail })),
      },
    };
  }

  function spendResult(): CallToolResult {
    // Every client's spend this UTC month, from the ledger they share, per service.
    const month = ledger.thisMonth();
    const monthText = month
      ? ` The spend ledger (${ledger.path}) records this UTC month, across clients: ${
          month.length === 0 ? 'nothing' : month.map((m) => `${m.transactions} at ${m.origin}`).join(', ')
        } (\`enrich spend\` shows it by operation).`
      : '';
    const figures = {
      spent: budget.spent,
      mayHaveBeenPaid: budget.mayHaveBeenPaid,
      answeredFromCache: budget.fromCache,
      budget: budget.max ?? null,
      left: budget.left ?? null,
      cache: cache.path,
      service: connection.bases.sandbox ? 'the embedded sandbox (nothing billed)' : connection.bases.baseUrl,
      ledger: ledger.path,
      ledgerThisMonth: month ?? null,
    };
    return {
      content: [
        {
          type: 'text',
          text: `${budget.describe()}; ${budget.fromCache} call${budget.fromCache === 1 ? '' : 's'} answered free from the answer cache (${cache.path}).${
            budget.mayHaveBeenPaid > 0
              ? ` ${budget.mayHaveBeenPaid} request(s) got no answer and may have been paid.`
              : ''
          }${monthText}`,
        },
      ],
      structuredContent: figures,
    };
  }

  return {
    server,
    idle: async () => {
      while (inProgress.size > 0) await Promise.allSettled([...inProgress]);
    },
  };
}

function describe(input: CleanInput): string {
  return Object.entries(input)
    .map(([n, v]) => `${n} ${v}`)
    .join(', ');
}
