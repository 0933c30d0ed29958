// The identity of a request for deduplication and caching: the operation and its normalised input,
// in catalog field order. The API key is not part of it, so a cached answer is never tied to a key
// and a key is never stored beside an answer.
import type { Operation } from './catalog.js';
import type { CleanInput } from './validate.js';

export function requestKey(op: Operation, input: CleanInput): string {
  const parts = op.inputs.filter((f) => input[f.name] !== undefined).map((f) => [f.name, input[f.name]]);
  return `${op.id}:${JSON.stringify(parts)}`;
}
