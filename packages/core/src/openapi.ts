// The OpenAPI 3.1 document of the API, derived from the catalog. `pnpm openapi` writes it to
// packages/core/openapi.json; a test checks that the file is current, and CI lints it.
import { OPERATIONS, type Operation } from './catalog.js';
import type { InputField } from './fields.js';
import type { LeafField, OutputShape } from './outputs.js';
import type { Rule } from './rules.js';
import { DEFAULT_BASE_URL, DEFAULT_BASE_URL_V3 } from './settings.js';
import { shapeSchema } from './shape-schema.js';
import { CATEGORY_TEXT } from './vocabulary/categories.js';
import { FIELD_KINDS } from './vocabulary/field-kinds.js';
import { STATUS_TABLE } from './vocabulary/status-codes.js';

type Json = { [key: string]: unknown };

export function buildOpenApi(): Json {
  const paths: Json = {};
  for (const op of OPERATIONS) paths[op.path] = pathItem(op);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Data enrichment service: append, lookup and verify',
      version: '2.0.0',
      description:
        'Generated from the operation catalog in packages/core. Data for marketing and lead-validation purposes only; not for consumer-report purposes (credit, insurance, employment).',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: DEFAULT_BASE_URL, description: '{base_url}: the version-2 operations' }],
    security: [{ apiKey: [] }],
    tags: Object.entries(CATEGORY_TEXT).map(([name, text]) => ({ name, description: `${text}.` })),
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
    },
  };
}

function pathItem(op: Operation): Json {
  const item: Json = {
    post: {
      operationId: camel(op.id),
      summary: op.title,
      tags: [op.category],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: inputSchema(op), example: op.example } },
      },
      responses: {
        '200': {
          description: 'Successful.',
          content: { 'application/json': { schema: outputSchema(op.output) } },
        },
        // Every status of the table after 200, in order; 204 carries no body.
        ...Object.fromEntries(
          Object.entries(STATUS_TABLE)
            .filter(([status]) => status !== '200')
            .map(([status, info]) => [status, { description: info.message }]),
        ),
      },
    },
  };
  if (op.version === 'v3') {
    item.servers = [{ url: DEFAULT_BASE_URL_V3, description: '{base_url_v3}: the version-3 operations' }];
  }
  return item;
}

function inputSchema(op: Operation): Json {
  const schema: Json = {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(op.inputs.map((f) => [f.name, inputFieldSchema(f)])),
  };
  const required = op.rules.flatMap((r) => (r.kind === 'required' ? r.fields : []));
  if (required.length > 0) schema.required = required;
  const anyOfs = op.rules
    .filter((r) => r.kind === 'one-of')
    .map((r) => ({ anyOf: r.groups.map(requireAll) }));
  if (anyOfs.length > 0) schema.allOf = anyOfs;
  const dependent: Record<string, string[]> = {};
  for (const rule of op.rules) addDependencies(rule, dependent);
  if (Object.keys(dependent).length > 0) schema.dependentRequired = dependent;
  return schema;
}

function requireAll(group: readonly string[]): Json {
  return { required: [...group] };
}

function addDependencies(rule: Rule, dependent: Record<string, string[]>): void {
  if (rule.kind === 'together') {
    for (const f of rule.fields) dependent[f] = rule.fields.filter((g) => g !== f);
  } else if (rule.kind === 'needs' && rule.groups.length === 1 && rule.groups[0]) {
    dependent[rule.field] = [...rule.groups[0]];
  }
}

function inputFieldSchema(field: InputField): Json {
  const schema: Json = { type: 'string', description: field.label, ...FIELD_KINDS[field.kind].openapi };
  if (field.maxLength !== undefined) schema.maxLength = field.maxLength;
  return schema;
}

function outputSchema(shape: OutputShape): Json {
  return shapeSchema(shape, leafSchema);
}

function leafSchema(field: LeafField): Json {
  // Unknown values arrive as empty strings, whatever the field's type.
  const type =
    field.type === 'string' ? 'string' : [field.type === 'number' ? 'integer' : field.type, 'string'];
  const schema: Json = { type: field.nullable ? [...(Array.isArray(type) ? type : [type]), 'null'] : type };
  if (field.note) schema.description = field.note;
  return schema;
}

function camel(id: string): string {
  return id.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
