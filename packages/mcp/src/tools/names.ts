// A tool's name for an operation, and the operation a name (or an id or title) names: the operation
// tools, quote and enrich_file all say operations so.
import { OPERATIONS, type Operation } from '@enrich/core';

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
