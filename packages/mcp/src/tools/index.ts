// Every tool of the server, each registered by its own module, in the order clients list them.

import { registerCheckKey } from './check-key.js';
import type { ToolContext } from './context.js';
import { registerEnrichFile } from './enrich-file.js';
import { registerOperationTools } from './operations.js';
import { registerQuote } from './quote.js';
import type { ToolRegistry } from './registry.js';
import { registerSpend } from './spend.js';

export function registerTools(tools: ToolRegistry, ctx: ToolContext): void {
  registerOperationTools(tools, ctx);
  registerCheckKey(tools, ctx);
  registerSpend(tools, ctx);
  registerQuote(tools, ctx);
  registerEnrichFile(tools, ctx);
}
