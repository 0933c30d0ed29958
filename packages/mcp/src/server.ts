// The MCP server: the parts every tool shares, made once (the answer cache, the budget, the ledger,
// the shared store, the allowed folders, the purchase path), the tools of tools/ registered over
// them, and the low-level SDK Server serving their list and handing each call to its tool.
import type { Transport } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AllowedFolders } from './allowed-folders.js';
import { BriefAnswerStore } from './brief-answer-store.js';
import { Budget } from './budget.js';
import { type Config, MAX_AGE_MS, STOP_GRACE_MS } from './config.js';
import { type Connection, TIMEOUT_MS } from './connection.js';
import { instructions } from './instructions.js';
import { Privacy } from './privacy.js';
import { Purchases } from './purchase.js';
import { errorResult } from './reading.js';
import { withSandboxNote } from './sandbox-note.js';
import { SharedStores } from './shared-stores.js';
import { McpLedger } from './spend-ledger.js';
import type { ToolContext } from './tools/context.js';
import { registerTools } from './tools/index.js';
import { Quotes } from './tools/quotes.js';
import { ToolRegistry } from './tools/registry.js';
import { mcpVersion } from './version.js';

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
  const server = new Server(
    { name: 'enrich-mcp', title: 'Enrichment API', version: mcpVersion() },
    { capabilities: { tools: {} }, instructions: instructions({ sandbox: deps.config.sandbox }) },
  );
  // Stopping ends every wait and sends nothing more; requests already on the wire get a second to
  // answer (their answers are paid for: keep them), then are cut.
  const stopping = new AbortController();
  const abandon = new AbortController();
  const ctx = serverParts(server, deps, stopping.signal, abandon.signal);
  const tools = new ToolRegistry();
  registerTools(tools, ctx);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.list() }));
  const inProgress = new Set<Promise<CallToolResult>>();
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const call = callTool(tools, ctx, request.params.name, request.params.arguments ?? {}).then(
      // Everything returned passes the key scrubber too: a service that echoes the key back in a
      // record must not hand it to the model.
      (result) => JSON.parse((deps.shown ?? deps.scrub)(JSON.stringify(result))) as CallToolResult,
    );
    inProgress.add(call);
    void call.finally(() => inProgress.delete(call));
    return call;
  });
  return {
    server,
    stop: async () => {
      stopping.abort();
      void ctx.cache.stop();
      const cut = setTimeout(() => abandon.abort(), STOP_GRACE_MS);
      while (inProgress.size > 0) await Promise.allSettled([...inProgress]);
      clearTimeout(cut);
      await ctx.cache.stop();
      await ctx.stores?.close();
    },
  };
}

/** The parts the tools share, made once for the server's life. */
function serverParts(server: Server, deps: ServerDeps, stop: AbortSignal, abandon: AbortSignal): ToolContext {
  const { config, connection, log, scrub } = deps;
  // Forgotten people refused before the cache is read; the retention caps the cache's max age.
  const privacy = new Privacy(config.dataDir, config.storeUrl, log);
  const maxAgeMs = privacy.maxAge(MAX_AGE_MS);
  const cache = new BriefAnswerStore({
    path: config.cachePath,
    maxAgeMs,
    scrub,
    log,
    forgotten: (key) => privacy.forgottenKey(key),
  });
  const budget = new Budget(config.maxTransactions);
  const ledger = new McpLedger(config.ledgerPath, log);
  // The team's shared answer store, when one is configured (shared-stores.ts).
  const stores =
    config.storeUrl === undefined
      ? undefined
      : new SharedStores({
          url: config.storeUrl,
          maxAgeMs,
          maxTransactionsPerMonth: config.maxTransactionsPerMonth,
        });
  const transport = deps.transport ?? createFetchTransport({ timeoutMs: TIMEOUT_MS, signal: abandon });
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
    stop,
  });
  const folders = new AllowedFolders(server, config.allowDirs, log);
  const parts = {
    server,
    config,
    connection,
    cache,
    budget,
    ledger,
    purchases,
    folders,
    stores,
    privacy,
    maxAgeMs,
  };
  return { ...parts, quotes: new Quotes(), scrub, log, stop };
}

/** One call handed to its tool; with --sandbox, its result says first that its data is synthetic. */
async function callTool(
  tools: ToolRegistry,
  ctx: ToolContext,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const result = await answer(tools, ctx, name, args);
  return ctx.connection.bases.sandbox ? withSandboxNote(result) : result;
}

async function answer(
  tools: ToolRegistry,
  ctx: ToolContext,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  if (ctx.stop.aborted) return errorResult(`${name}: the server is stopping. Nothing was sent.`);
  const handler = tools.handler(name);
  if (!handler) return errorResult(`There is no tool named ${name}.`);
  try {
    return await handler(args);
  } catch (error) {
    ctx.log(`${name}: ${(error as Error).stack ?? String(error)}`);
    return errorResult(`${name} failed: ${(error as Error).message}`);
  }
}
