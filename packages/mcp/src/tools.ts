// The tools, generated from core's catalog: one per operation (snake_case name, the API's own field
// names, bounds and rules as JSON Schema, an output schema from the catalog's output shape), plus
// the free tools and the file tools. No operation or field is written here by hand.
import {
  type Category,
  FIELD_KINDS,
  type InputField,
  type LeafField,
  OPERATIONS,
  type Operation,
  type OutputShape,
  type Rule,
} from '@enrich/core';
import { PERMITTED_USE } from './permitted-use.js';

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

// What each category of operation does (the words of the OpenAPI document's tags).
const CATEGORY_TEXT: Readonly<Record<Category, string>> = {
  append: 'Adds missing information to an existing record',
  lookup: 'Returns the information associated with one data point',
  verify: 'Checks the accuracy, deliverability, compliance or identity of the data given',
};

export const COST_TEXT =
  'Each call spends one paid transaction of the API key (a no match too); asking again for the same input, in any spelling and in any session, is answered free from the local answer cache. Invalid input is refused before sending and costs nothing.';

function list(items: readonly string[], word: 'and' | 'or'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${word} ${items[items.length - 1]}`;
}

/** A requirement rule in words, for a tool's description. */
function ruleText(rule: Rule): string {
  switch (rule.kind) {
    case 'required':
      return `${list(rule.fields, 'and')} ${rule.fields.length === 1 ? 'is' : 'are'} required`;
    case 'one-of':
      return `give ${rule.groups.map((g) => list(g, 'and')).join(', or ')}`;
    case 'together':
      return `${list(rule.fields, 'and')} go together`;
    case 'needs':
      return `${rule.field} needs ${rule.groups.map((g) => list(g, 'and')).join(', or ')} as well`;
  }
}

function describeOperation(op: Operation): string {
  const output = Object.keys(op.output);
  return [
    `${op.title}: ${CATEGORY_TEXT[op.category]}. Takes ${list(
      op.inputs.map((f) => f.name),
      'and',
    )}; ${op.rules.map(ruleText).join('; ')}. Returns ${list(output, 'and')}, or no match.`,
    COST_TEXT,
    'Coded values are explained in the text answer as likely meanings.',
    PERMITTED_USE,
  ].join(' ');
}

function inputFieldSchema(field: InputField): Json {
  const kind = FIELD_KINDS[field.kind];
  const schema: Json = {
    type: 'string',
    description: `${field.label} (${kind.hint}; formatting such as "(555) 010-2030" is normalised before sending)`,
    ...kind.openapi,
  };
  if (field.maxLength !== undefined) schema.maxLength = field.maxLength;
  return schema;
}

/**
 * The operation's input as JSON Schema: every field by its API name, the bounds and patterns, the
 * `required` fields and the fields that go together. "At least one of these groups" is left to
 * core's validation (and said in the description): top-level anyOf is refused by several clients.
 */
function inputSchema(op: Operation): Json & { type: 'object' } {
  const schema: Json & { type: 'object' } = {
    type: 'object',
    properties: Object.fromEntries(op.inputs.map((f) => [f.name, inputFieldSchema(f)])),
    additionalProperties: false,
  };
  const required = op.rules.flatMap((r) => (r.kind === 'required' ? r.fields : []));
  if (required.length > 0) schema.required = [...new Set(required)];
  const dependent: Record<string, string[]> = {};
  for (const rule of op.rules) {
    if (rule.kind === 'together') {
      for (const f of rule.fields) dependent[f] = rule.fields.filter((g) => g !== f);
    } else if (rule.kind === 'needs' && rule.groups.length === 1 && rule.groups[0]) {
      dependent[rule.field] = [...rule.groups[0]];
    }
  }
  if (Object.keys(dependent).length > 0) schema.dependentRequired = dependent;
  return schema;
}

/**
 * A leaf as the tolerant reader keeps it: its described type, or text when the service sent another
 * type (kept, never dropped), or null when a number or flag is missing.
 */
function leafSchema(leaf: LeafField): Json {
  const schema: Json = { type: leaf.type === 'string' ? ['string', 'null'] : [leaf.type, 'string', 'null'] };
  if (leaf.note) schema.description = leaf.note;
  return schema;
}

/**
 * The record as JSON Schema, from the catalog's output shape. Fields the API description does not
 * list are added at the top level under their dotted names (`DID`, `Name.Nick`), so additional
 * properties are allowed; a no match is an empty record.
 */
export function outputSchema(shape: OutputShape): Json & { type: 'object' } {
  const properties: Json = {};
  for (const [name, field] of Object.entries(shape)) {
    properties[name] =
      field.type === 'object'
        ? {
            type: 'object',
            properties: Object.fromEntries(
              Object.entries(field.fields).map(([leaf, f]) => [leaf, leafSchema(f)]),
            ),
          }
        : leafSchema(field);
  }
  return { type: 'object', properties };
}

const PAID = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true };
const FREE = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

export function operationTool(op: Operation): ToolDefinition {
  return {
    name: toolName(op),
    title: op.title,
    description: describeOperation(op),
    inputSchema: inputSchema(op),
    outputSchema: outputSchema(op.output),
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
    'Free: what this server has spent since it started (transactions, calls answered from the cache), the budget and what is left of it.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { title: 'Spend so far', ...FREE, openWorldHint: false },
};

export function allTools(): ToolDefinition[] {
  return [...OPERATIONS.map(operationTool), CHECK_KEY_TOOL, SPEND_TOOL, QUOTE_TOOL, ENRICH_FILE_TOOL];
}
