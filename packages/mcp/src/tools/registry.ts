// The server's tools, each registered by its own module (tools/index.ts collects them, as the
// official servers do): a definition (JSON Schema generated from core's catalog, so no zod
// restatement, as the low-level SDK Server takes it) and the handler of its calls. server.ts serves
// the list and hands each call to its tool.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type Json = { [key: string]: unknown };

export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Json & { type: 'object' };
  readonly outputSchema?: Json & { type: 'object' };
  readonly annotations: {
    readonly title: string;
    readonly readOnlyHint: boolean;
    readonly destructiveHint: boolean;
    readonly idempotentHint: boolean;
    readonly openWorldHint: boolean;
  };
}

/** A paid tool: clients ask before calling it. */
export const PAID = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
};
/** A free tool. */
export const FREE = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

export type ToolHandler = (args: Record<string, unknown>) => Promise<CallToolResult>;

export class ToolRegistry {
  private readonly tools = new Map<string, { definition: ToolDefinition; handler: ToolHandler }>();

  register(definition: ToolDefinition, handler: ToolHandler): void {
    if (this.tools.has(definition.name)) throw new Error(`The tool ${definition.name} is registered twice`);
    this.tools.set(definition.name, { definition, handler });
  }

  /** The definitions, in the order they were registered. */
  list(): ToolDefinition[] {
    return [...this.tools.values()].map((tool) => tool.definition);
  }

  handler(name: string): ToolHandler | undefined {
    return this.tools.get(name)?.handler;
  }
}
