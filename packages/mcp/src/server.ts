// The MCP server: the tools of tools.ts over the low-level SDK Server (the schemas are JSON Schema
// generated from the catalog, so no zod restatement). Paid calls go through purchase.ts (validate,
// the answer cache, a request on its way shared, the budget and the person's word, one request,
// the record); files through file-tools.ts, inside the folders of allowed-folders.ts.

import { checkKey, OPERATIONS, type Transport } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AllowedFolders } from './allowed-folders.js';
import { AnswerCache } from './answer-cache.js';
import { Budget } from './budget.js';
import { type Config, MAX_AGE_MS, STOP_GRACE_MS } from './config.js';
import type { Connection } from './connection.js';
import { FileTools } from './file-tools.js';
import { Privacy } from './privacy.js';
import { Purchases } from './purchase.js';
import { errorResult } from './reading.js';
import { withSandboxNote } from './sandbox-note.js';
import { SharedStores, storeThisMonth } from './shared-stores.js';
import { SpendLedger } from './spend-ledger.js';
import { allTools, instructions, toolName } from './tools.js';
import { mcpVersion } from './version.js';

/** One attempt's deadline, as the CLI's default --timeout. */
const TIMEOUT_MS = 30_000;

export interface ServerDeps {
  readonly config: Config;
  readonly connection: Connection;
  readonly scrub: (text: string) => string;
  /** For tool results: the key hidden, and the shared store's password (default: scrub). */
  readonly shown?: (text: string) => string;
  readonly log: (text: string) => void;
  /** The transport of single calls (core's fetch transport: no redirect followed, one deadline). */
  readonly transport?: Transport;
}

export interface EnrichServer {
  readonly server: Server;
  /**
   * Stops the server's work for an exit: waits for Retry-After end, requests in flight are cut
   * (counted as may have been paid), file runs stop sending, answers being kept are set aside at
   * once; resolves when no tool call is in progress.
   */
  stop(): Promise<void>;
}

export function createServer(deps: ServerDeps): EnrichServer {
  const { config, connection, log } = deps;
  const server = new Server(
    { name: 'enrich-mcp', title: 'Enrichment API', version: mcpVersion() },
    { capabilities: { tools: {} }, instructions: instructions({ sandbox: config.sandbox }) },
  );
  // Stopping ends every wait and sends nothing more; requests already on the wire get a second to
  // answer (their answers are paid for: keep them), then are cut.
  const stopping = new AbortController();
  const abandon = new AbortController();
  // Forgotten people refused before the cache is read; the retention caps the cache's max age.
  const privacy = new Privacy(config.dataDir, config.storeUrl, log);
  const maxAgeMs = privacy.maxAge(MAX_AGE_MS);
  const cache = new AnswerCache({ path: config.cachePath, maxAgeMs, scrub: deps.scrub, log });
  const budget = new Budget(config.maxTransactions);
  // The team's shared answer store, when one is configured (shared-stores.ts).
  const stores =
    config.storeUrl === undefined
      ? undefined
      : new SharedStores({
          url: config.storeUrl,
          maxAgeMs,
          maxTransactionsPerMonth: config.maxTransactionsPerMonth,
        });
  const transport = deps.transport ?? createFetchTransport({ timeoutMs: TIMEOUT_MS, signal: abandon.signal });
  const ledger = new SpendLedger(config.ledgerPath, log);
  const folders = new AllowedFolders(server, config.allowDirs, log);
  const files = new FileTools({
    server,
    config,
    connection,
    budget,
    ledger,
    scrub: deps.scrub,
    folders,
    stores,
    privacy,
    stop: stopping.signal,
  });
  const purchases = new Purchases({
    server,
    config,
    connection,
    cache,
    budget,
    ledger,
    transport,
    stores,
    privacy,
    log,
    stop: stopping.signal,
  });
  const tools = allTools();

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  const inProgress = new Set<Promise<CallToolResult>>();
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    // Everything returned passes the key scrubber too: a service that echoes the key back in a
    // record must not hand it to the model.
    const shown = deps.shown ?? deps.scrub;
    const call = handle(request.params.name, request.params.arguments).then(
      (result) => JSON.parse(shown(JSON.stringify(result))) as CallToolResult,
    );
    inProgress.add(call);
    void call.finally(() => inProgress.delete(call));
    return call;
  });

  // With --sandbox, every result says first that its data is synthetic and unbilled.
  async function handle(name: string, given: Record<string, unknown> | undefined): Promise<CallToolResult> {
    const result = await answer(name, given);
    return connection.bases.sandbox ? withSandboxNote(result) : result;
  }

  async function answer(name: string, given: Record<string, unknown> | undefined): Promise<CallToolResult> {
    const args = given ?? {};
    if (stopping.signal.aborted) return errorResult(`${name}: the server is stopping. Nothing was sent.`);
    try {
      if (name === 'check_key') return await keyCheck();
      if (name === 'spend') return await spendResult();
      if (name === 'quote') return await files.quote(args);
      if (name === 'enrich_file') return await files.enrichFile(args);
      const op = OPERATIONS.find((o) => toolName(o) === name);
      if (!op) return errorResult(`There is no tool named ${name}.`);
      return await purchases.call(op, args);
    } catch (error) {
      log(`${name}: ${(error as Error).stack ?? String(error)}`);
      return errorResult(`${name} failed: ${(error as Error).message}`);
    }
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

  async function spendResult(): Promise<CallToolResult> {
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
      ...(stores ? { store: await storeThisMonth(stores, connection.bases) } : {}),
    };
    const storeText = figures.store ? ` ${figures.store.text}` : '';
    return {
      content: [
        {
          type: 'text',
          text: `${budget.describe()}; ${budget.fromCache} call${budget.fromCache === 1 ? '' : 's'} answered free from the answer cache (${cache.path}).${
            budget.mayHaveBeenPaid > 0
              ? ` ${budget.mayHaveBeenPaid} request(s) got no answer and may have been paid.`
              : ''
          }${monthText}${storeText}`,
        },
      ],
      structuredContent: figures,
    };
  }

  return {
    server,
    stop: async () => {
      stopping.abort();
      void cache.stop();
      const cut = setTimeout(() => abandon.abort(), STOP_GRACE_MS);
      while (inProgress.size > 0) await Promise.allSettled([...inProgress]);
      clearTimeout(cut);
      await cache.stop();
      await stores?.close();
    },
  };
}
