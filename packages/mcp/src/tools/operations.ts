// The nine operation tools, generated from core's catalog: a snake_case name, the API's own field
// names, bounds and rules as JSON Schema, an output schema from the catalog's output shape (core's
// tool-schema.ts, which the VS Code chat tools share). No operation or field is written here by
// hand. Each call is one paid question through the purchase path (purchase.ts).
import {
  OPERATIONS,
  type Operation,
  operationInputSchema,
  operationOutputSchema,
  operationSummary,
} from '@enrich/core';
import type { ToolContext } from './context.js';
import { toolName } from './names.js';
import { PAID, type ToolDefinition, type ToolRegistry } from './registry.js';

// What a call costs and the rest of the rules are in the server's instructions (instructions.ts);
// the description says what the tool returns, when to use it and that it is paid.
const PAID_TAG = 'Paid: 1 transaction per new question (a no match too); asked again, free.';

export function operationTool(op: Operation): ToolDefinition {
  return {
    name: toolName(op),
    title: op.title,
    description: `${operationSummary(op)} ${PAID_TAG}`,
    inputSchema: operationInputSchema(op),
    outputSchema: operationOutputSchema(op.output),
    annotations: { title: op.title, ...PAID },
  };
}

export function registerOperationTools(tools: ToolRegistry, ctx: ToolContext): void {
  for (const op of OPERATIONS) tools.register(operationTool(op), (args) => ctx.purchases.call(op, args));
}
