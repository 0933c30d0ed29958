// The identity of a request for deduplication and caching: the operation and its normalised input,
// in catalog field order. The API key is not part of it, so a cached answer is never tied to a key
// and a key is never stored beside an answer.
import { OPERATIONS, type Operation } from './catalog.js';
import type { CleanInput } from './validate.js';

export function requestKey(op: Operation, input: CleanInput): string {
  const parts = op.inputs.filter((f) => input[f.name] !== undefined).map((f) => [f.name, input[f.name]]);
  return `${op.id}:${JSON.stringify(parts)}`;
}

/**
 * The operation and clean input a request key was made of, or undefined for a key that is not
 * requestKey's (what a kept answer's key says of its request: whose identities it holds).
 */
export function requestOfKey(key: string): { op: Operation; input: CleanInput } | undefined {
  const colon = key.indexOf(':');
  const op = OPERATIONS.find((candidate) => candidate.id === key.slice(0, colon));
  if (op === undefined) return undefined;
  let pairs: unknown;
  try {
    pairs = JSON.parse(key.slice(colon + 1));
  } catch {
    return undefined;
  }
  if (!Array.isArray(pairs)) return undefined;
  const input: Record<string, string> = {};
  for (const pair of pairs) {
    if (Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string') {
      input[pair[0]] = pair[1];
    }
  }
  return { op, input: input as CleanInput };
}
