// check_key: is the key accepted by each base in use (core's free key check: a request the service
// must refuse as incomplete, 400 = accepted, 401 = refused; never retried).
import { checkKey } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TIMEOUT_MS } from '../connection.js';
import { errorResult } from '../reading.js';
import type { ToolContext } from './context.js';
import { FREE, type ToolDefinition, type ToolRegistry } from './registry.js';

const CHECK_KEY_TOOL: ToolDefinition = {
  name: 'check_key',
  title: 'Check the API key',
  description:
    'Free: checks that the API key is accepted by each base URL in use, with a request the service must refuse as incomplete (400 = accepted, 401 = refused). Use it when a call says the key was refused.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { title: 'Check the API key', ...FREE },
};

export function registerCheckKey(tools: ToolRegistry, ctx: ToolContext): void {
  tools.register(CHECK_KEY_TOOL, () => keyCheck(ctx));
}

async function keyCheck({ connection }: ToolContext): Promise<CallToolResult> {
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
