// The catalog's output shape as a JSON Schema object, each leaf by the caller's rule: the OpenAPI
// document describes the values as documented, the assistants' tools as the tolerant reader keeps
// them (a wrong-typed value as text).
import type { LeafField, OutputShape } from './outputs.js';

type Json = { [key: string]: unknown };

export function shapeSchema(
  shape: OutputShape,
  leafSchema: (field: LeafField) => Json,
): Json & { type: 'object' } {
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
