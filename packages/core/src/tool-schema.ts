// The operations as tools for AI assistants, from the catalog: each operation's input and output as
// JSON Schema, and a summary of what it does in words. The MCP server (`@enrich/mcp`) and the VS
// Code chat tools both describe their tools with these, so no operation or field is written by hand
// in either. Unlike the OpenAPI document (openapi.ts), the input schema leaves "at least one of
// these groups" to core's validation (several clients refuse a top-level anyOf), and the output
// schema is what the tolerant reader keeps (a value of another type is kept as text).
import type { Operation } from './catalog.js';
import type { InputField } from './fields.js';
import type { LeafField, OutputShape } from './outputs.js';
import type { Rule } from './rules.js';
import { shapeSchema } from './shape-schema.js';
import { FIELD_KINDS } from './vocabulary/field-kinds.js';

type Json = { [key: string]: unknown };
export type ObjectSchema = Json & { type: 'object' };

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

/**
 * "Phone Lookup: Says who a phone number belongs to: ... Use it when you have only a phone. Needs
 * Phone." What it returns and when to use it (the catalog's `purpose`), then what it needs.
 */
export function operationSummary(op: Operation): string {
  return `${op.title}: ${op.purpose} Needs: ${op.rules.map(ruleText).join('; ')}.`;
}

/**
 * A field as a tool takes it: what may be given, in words and as a schema that accepts every form
 * normalisation mends (a formatted phone, a ZIP+4), so that a model is never told its well-formed
 * "(555) 010-2030" is wrong. Core's validation still decides, before anything is sent.
 */
function inputFieldSchema(field: InputField): Json {
  const { typed } = FIELD_KINDS[field.kind];
  const words = typed.words === '' ? field.label : `${field.label}: ${typed.words}`;
  const bound = field.maxLength === undefined ? '' : `, at most ${field.maxLength} characters`;
  const schema: Json = { type: 'string', description: words + bound };
  if (typed.pattern !== undefined) schema.pattern = typed.pattern;
  if (typed.format !== undefined) schema.format = typed.format;
  if (field.maxLength !== undefined) schema.maxLength = field.maxLength;
  return schema;
}

/**
 * The operation's input as JSON Schema: every field by its API name, the bounds and patterns, the
 * `required` fields and the fields that go together. "At least one of these groups" is left to
 * core's validation (and said in the summary): top-level anyOf is refused by several clients.
 */
export function operationInputSchema(op: Operation): ObjectSchema {
  const schema: ObjectSchema = {
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
 * A leaf as the tolerant reader keeps it (record-reader.ts): its described type, or text when the
 * service sent another type (kept, never dropped) or nothing (''); null only where the description
 * says "may be null".
 */
function leafSchema(leaf: LeafField): Json {
  const types: string[] = leaf.type === 'string' ? ['string'] : [leaf.type, 'string'];
  if (leaf.nullable) types.push('null');
  const schema: Json = { type: types.length === 1 ? types[0] : types };
  if (leaf.note) schema.description = leaf.note;
  return schema;
}

/**
 * The record as JSON Schema, from the catalog's output shape. Fields the API description does not
 * list are added at the top level under their dotted names (`DID`, `Name.Nick`), so additional
 * properties are allowed; a no match is an empty record.
 */
export function operationOutputSchema(shape: OutputShape): ObjectSchema {
  return shapeSchema(shape, leafSchema);
}
