// quote: a file's plan and a one-time token, sending nothing (file-plan.ts).
import { errorResult } from '../reading.js';
import type { ToolContext } from './context.js';
import { quoted } from './file-plan.js';
import { FILE_PROPERTIES, fileRequest } from './file-request.js';
import { FREE, type ToolDefinition, type ToolRegistry } from './registry.js';

const QUOTE_TOOL: ToolDefinition = {
  name: 'quote',
  title: 'Quote a file',
  description:
    'Free: plans a file run, sending nothing: rows, invalid rows and why, distinct requests, answers already cached, transactions it would spend, and a one-time token that enrich_file needs. Use it before enrich_file.',
  inputSchema: {
    type: 'object',
    properties: FILE_PROPERTIES,
    required: ['operation', 'path'],
    additionalProperties: false,
  },
  annotations: { title: 'Quote a file', ...FREE, openWorldHint: false },
};

export function registerQuote(tools: ToolRegistry, ctx: ToolContext): void {
  tools.register(QUOTE_TOOL, async (args) => {
    const request = await fileRequest(args, ctx.folders);
    if (typeof request === 'string') return errorResult(request);
    return quoted(request, '', ctx);
  });
}
