// spend: what this server has spent (its budget and what is left, answers from the cache), what
// every client recorded this UTC month in the spend ledger they share, per service, and with a
// shared answer store, the store's figure for the month.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { storeThisMonth } from '../shared-stores.js';
import type { ToolContext } from './context.js';
import { FREE, type ToolDefinition, type ToolRegistry } from './registry.js';

const SPEND_TOOL: ToolDefinition = {
  name: 'spend',
  title: 'Spend so far',
  description:
    'Free: what this server has spent since it started (transactions, answers from the cache), its budget and what is left, and what every client spent this UTC month per service (the shared spend ledger). Use it before and after many paid calls.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { title: 'Spend so far', ...FREE, openWorldHint: false },
};

export function registerSpend(tools: ToolRegistry, ctx: ToolContext): void {
  tools.register(SPEND_TOOL, () => spendResult(ctx));
}

async function spendResult({
  budget,
  cache,
  connection,
  ledger,
  stores,
}: ToolContext): Promise<CallToolResult> {
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
  const unanswered =
    budget.mayHaveBeenPaid > 0
      ? ` ${budget.mayHaveBeenPaid} request(s) got no answer and may have been paid.`
      : '';
  return {
    content: [
      {
        type: 'text',
        text: `${budget.describe()}; ${budget.fromCache} call${budget.fromCache === 1 ? '' : 's'} answered free from the answer cache (${cache.path}).${unanswered}${monthText}${storeText}`,
      },
    ],
    structuredContent: figures,
  };
}
