// Reads an HTTP response into the outcome of a call: a record (200), no match (204), or an error.
// A 200 is checked against the output record the catalog promises; missing or null values read as
// empty strings, except where the description allows null (Phone Lookup's AptType).
import type { Operation } from './catalog.js';
import { type CallError, callError, codeForStatus, messageForStatus } from './errors.js';
import type { HttpResponse } from './http.js';
import type { LeafField, OutputShape } from './outputs.js';

export type LeafValue = string | number | boolean | null;
export type OutputRecord = { readonly [field: string]: LeafValue | { readonly [leaf: string]: LeafValue } };

export type Outcome =
  | { readonly kind: 'record'; readonly status: 200; readonly record: OutputRecord }
  | { readonly kind: 'no-match'; readonly status: 204 }
  | { readonly kind: 'error'; readonly error: CallError };

export function readResponse(op: Operation, response: HttpResponse): Outcome {
  const { status } = response;
  if (status === 204) return { kind: 'no-match', status: 204 };
  if (status !== 200) {
    const extra: Partial<CallError> = { status };
    const retryAfterMs =
      status === 429 || status >= 500 ? parseRetryAfter(response.headers['retry-after']) : undefined;
    if (retryAfterMs !== undefined) Object.assign(extra, { retryAfterMs });
    return { kind: 'error', error: callError(codeForStatus(status), messageForStatus(status), extra) };
  }
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return badResponse('the body is not JSON');
  }
  const read = readShape(op.output, body, '');
  if (typeof read === 'string') return badResponse(read);
  return { kind: 'record', status: 200, record: read };
}

/** Retry-After as seconds or an HTTP date is honoured; dates need a clock, so only seconds here. */
export function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return undefined;
  return Math.round(Number(trimmed) * 1000);
}

/** A network failure: no response arrived. */
export function networkError(url: string, cause: unknown): Outcome {
  const host = /^https?:\/\/([^/]+)/.exec(url)?.[1] ?? url;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return {
    kind: 'error',
    error: callError('network', `Could not reach the service at ${host}: ${detail}`),
  };
}

function badResponse(what: string): Outcome {
  return {
    kind: 'error',
    error: callError('bad-response', `The service answered with something unexpected: ${what}.`, {
      status: 200,
    }),
  };
}

type Read = { [field: string]: LeafValue | { [leaf: string]: LeafValue } };

function readShape(shape: OutputShape, body: unknown, path: string): Read | string {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return 'the body is not a JSON object';
  const source = body as Record<string, unknown>;
  const out: Read = {};
  for (const [name, field] of Object.entries(shape)) {
    const value = source[name];
    if (field.type === 'object') {
      if (value === undefined || value === null || value === '') {
        out[name] = Object.fromEntries(Object.entries(field.fields).map(([leaf, f]) => [leaf, emptyOf(f)]));
        continue;
      }
      if (typeof value !== 'object' || Array.isArray(value)) return `${path}${name} is not an object`;
      const group: { [leaf: string]: LeafValue } = {};
      for (const [leaf, f] of Object.entries(field.fields)) {
        const leafValue = readLeaf(f, (value as Record<string, unknown>)[leaf], `${path}${name}.${leaf}`);
        if (typeof leafValue === 'object' && leafValue !== null) return leafValue.problem;
        group[leaf] = leafValue;
      }
      out[name] = group;
    } else {
      const leafValue = readLeaf(field, value, `${path}${name}`);
      if (typeof leafValue === 'object' && leafValue !== null) return leafValue.problem;
      out[name] = leafValue;
    }
  }
  return out;
}

function emptyOf(field: LeafField): LeafValue {
  return field.nullable ? null : '';
}

function readLeaf(field: LeafField, value: unknown, path: string): LeafValue | { problem: string } {
  if (value === undefined || value === null) return emptyOf(field);
  if (value === '') return '';
  switch (field.type) {
    case 'string':
      if (typeof value === 'string') return value;
      // A number where text is promised (a ZIP or a score) loses nothing by being read as text.
      if (typeof value === 'number') return String(value);
      return { problem: `${path} should be text` };
    case 'number':
      if (typeof value === 'number') return value;
      if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
      return { problem: `${path} should be a number` };
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      return { problem: `${path} should be true or false` };
  }
}
