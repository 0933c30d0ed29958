// What every tool's module is given: the server's parts, made once by createServer (server.ts).
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AllowedFolders } from '../allowed-folders.js';
import type { BriefAnswerStore } from '../brief-answer-store.js';
import type { Budget } from '../budget.js';
import type { Config } from '../config.js';
import type { Connection } from '../connection.js';
import type { Privacy } from '../privacy.js';
import type { Purchases } from '../purchase.js';
import type { SharedStores } from '../shared-stores.js';
import type { McpLedger } from '../spend-ledger.js';
import type { Quotes } from './quotes.js';

export interface ToolContext {
  readonly server: Server;
  readonly config: Config;
  readonly connection: Connection;
  /** The answer cache on disk. */
  readonly cache: BriefAnswerStore;
  readonly budget: Budget;
  readonly ledger: McpLedger;
  /** One paid call through the purchase path (the operation tools). */
  readonly purchases: Purchases;
  /** The folders the file tools may use (the client's roots, or --allow-dir): their one gate. */
  readonly folders: AllowedFolders;
  /** The quotes' one-time tokens, which enrich_file takes. */
  readonly quotes: Quotes;
  /** The team's shared answer store, if one is configured. */
  readonly stores?: SharedStores | undefined;
  /** The longest age of a kept answer any tool uses: the shorter of 30 days and the retention. */
  readonly maxAgeMs: number;
  /** The suppression lists (privacy.ts): rows of forgotten people are not sent. */
  readonly privacy?: Privacy | undefined;
  readonly scrub: (text: string) => string;
  readonly log: (text: string) => void;
  /** Aborted when the server stops: nothing more is sent. */
  readonly stop: AbortSignal;
}
