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

// The rules every paid tool shares (what a call costs, the answer cache, the permitted use) are said
// once, in the server's instructions (instructions() below); each tool's description says what it
// returns, when to use it and whether it is paid, short enough for a model to choose by.
const PAID_TAG = 'Paid: 1 transaction per new question (a no match too); asked again, free.';

function describeOperation(op: Operation): string {
  return `${operationSummary(op)} ${PAID_TAG}`;
}

/** The server's instructions: the rules of every tool, said once. */
export function instructions(options: { readonly sandbox: boolean }): string {
  return [
    "Tools for a contact-data enrichment API: people's names, postal addresses, e-mail addresses and US phone numbers. Each operation tool's description says what it returns and when to use it.",
    "Cost: each operation tool call for a new question spends one paid transaction of the user's API key, a no match included. The same question again, in any spelling and in any session, is answered free from the local answer cache. Invalid input is refused before sending and costs nothing. check_key, spend and quote are free.",
    "For more than a few inputs, put them in a file and use quote (free) then enrich_file with the quote's token: it pays once per distinct request, never more than quoted. spend (free) says what was spent and what is left of the budget.",
    'Coded values (result codes, line types) are explained in results as likely meanings: the provider does not document them.',
    options.sandbox
      ? 'This server uses the embedded sandbox: every result is synthetic (made-up people, never real ones) and nothing is billed. Say so when you show a result.'
      : '',
    PERMITTED_USE,
  ]
    .filter((line) => line !== '')
    .join('\n');
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

export const ENRICH_FILE_TOOL: ToolDefinition = {
  name: 'enrich_file',
  title: 'Enrich a file',
  description:
    "Enriches every row of a CSV, .xlsx or JSON Lines file with one operation and writes the enriched file (the input's columns, the operation's, and a status). Paid: 1 transaction per distinct valid request not already cached, never more than the quote said. Without a token it returns the quote and a token, spending nothing; call it again with that token (and the same operation, path, out and map) to run it. Use it for more than a few inputs.",
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
    'Free: checks that the API key is accepted by each base URL in use, with a request the service must refuse as incomplete (400 = accepted, 401 = refused). Use it when a call says the key was refused.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { title: 'Check the API key', ...FREE },
};

export const SPEND_TOOL: ToolDefinition = {
  name: 'spend',
  title: 'Spend so far',
  description:
    'Free: what this server has spent since it started (transactions, answers from the cache), its budget and what is left, and what every client spent this UTC month per service (the shared spend ledger). Use it before and after many paid calls.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { title: 'Spend so far', ...FREE, openWorldHint: false },
};

export function allTools(): ToolDefinition[] {
  return [...OPERATIONS.map(operationTool), CHECK_KEY_TOOL, SPEND_TOOL, QUOTE_TOOL, ENRICH_FILE_TOOL];
}
