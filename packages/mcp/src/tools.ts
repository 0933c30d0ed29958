// The tools, generated from core's catalog: one per operation (snake_case name, the API's own field
// names, bounds and rules as JSON Schema, an output schema from the catalog's output shape: core's
// tool-schema.ts, which the VS Code chat tools share), plus the free tools and the file tools. No
// operation or field is written here by hand.
import {
  OPERATIONS,
  type Operation,
  operationInputSchema,
  operationOutputSchema,
  operationSummary,
  PERMITTED_USE,
} from '@enrich/core';

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

/** `phone-lookup` -> `phone_lookup`. */
export function toolName(op: Operation): string {
  return op.id.replaceAll('-', '_');
}

/** The operation a tool name (or an operation id or title, in any case) names. */
export function operationNamed(name: string): Operation | undefined {
  const squash = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
  const wanted = squash(name);
  return OPERATIONS.find((op) => squash(op.id) === wanted || squash(op.title) === wanted);
}

export const COST_TEXT =
  'Each call spends one paid transaction of the API key (a no match too); asking again for the same input, in any spelling and in any session, is answered free from the local answer cache. Invalid input is refused before sending and costs nothing.';

function describeOperation(op: Operation): string {
  return [
    operationSummary(op),
    COST_TEXT,
    'Coded values are explained in the text answer as likely meanings.',
    PERMITTED_USE,
  ].join(' ');
}

const PAID = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true };
const FREE = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

export function operationTool(op: Operation): ToolDefinition {
  return {
    name: toolName(op),
    title: op.title,
    description: describeOperation(op),
    inputSchema: operationInputSchema(op),
    outputSchema: operationOutputSchema(op.output),
    annotations: { title: op.title, ...PAID },
  };
}

const OPERATION_NAMES = OPERATIONS.map(toolName);

const FILE_PROPERTIES: Json = {
  operation: { type: 'string', enum: OPERATION_NAMES, description: 'The operation, by its tool name' },
  path: {
    type: 'string',
    description: 'The file to enrich: CSV (any separator or encoding), Excel workbook (.xlsx) or JSON Lines',
  },
  out: {
    type: 'string',
    description: 'Where the enriched file goes (default: <name>.<operation>.<ext> beside the input)',
  },
  map: {
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'Input field -> column name, where the header does not name the column (e.g. {"Phone": "Mobile number"})',
  },
};

export const QUOTE_TOOL: ToolDefinition = {
  name: 'quote',
  title: 'Quote a file',
  description: `Free: reads a file and the answer cache, sends nothing, and says what enrich_file would do and spend (rows, invalid rows, distinct requests, answers already cached, transactions to spend), with a one-time token that enrich_file needs to run it. ${PERMITTED_USE}`,
  inputSchema: {
    type: 'object',
    properties: FILE_PROPERTIES,
    required: ['operation', 'path'],
    additionalProperties: false,
  },
  annotations: { title: 'Quote a file', ...FREE, openWorldHint: false },
};

export const ENRICH_FILE_TOOL: ToolDefinition = {
  name: 'enrich_file',
  title: 'Enrich a file',
  description: `Enriches every row of a file with one operation and writes the enriched file (input columns, then the output columns and a status column), paying at most once per distinct valid request. Without a token it only returns the plan and a token, spending nothing; call it again with that token (and the same operation, path, out and map) to run it, after the person confirms where the client can ask. ${COST_TEXT} ${PERMITTED_USE}`,
  inputSchema: {
    type: 'object',
    properties: {
      ...FILE_PROPERTIES,
      token: {
        type: 'string',
        description: 'The one-time token of a quote (or of a first enrich_file call)',
      },
    },
    required: ['operation', 'path'],
    additionalProperties: false,
  },
  annotations: { title: 'Enrich a file', ...PAID, idempotentHint: false },
};

export const CHECK_KEY_TOOL: ToolDefinition = {
  name: 'check_key',
  title: 'Check the API key',
  description:
    'Free: checks that the configured API key is accepted by each base URL in use, with a request the service must refuse as incomplete (400 = accepted, 401 = refused). Spends nothing.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { title: 'Check the API key', ...FREE },
};

export const SPEND_TOOL: ToolDefinition = {
  name: 'spend',
  title: 'Spend so far',
  description:
    'Free: what this server has spent since it started (transactions, calls answered from the cache), the budget and what is left of it; and, from the spend ledger every client shares, what was spent this UTC month, per service.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { title: 'Spend so far', ...FREE, openWorldHint: false },
};

export function allTools(): ToolDefinition[] {
  return [...OPERATIONS.map(operationTool), CHECK_KEY_TOOL, SPEND_TOOL, QUOTE_TOOL, ENRICH_FILE_TOOL];
}
