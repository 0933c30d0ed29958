// Reads an HTTP response into the outcome of a call: a record (200), no match (204), a paid but
// unreadable answer (200), or an error.
//
// A 200 is a purchase, so nothing in it is thrown away. Documented fields are matched by their exact
// name, else without regard to case; a value of an unexpected type is kept as text; fields the API
// description does not list are kept in `extra` under dotted names. Everything that differs from the
// description is listed in `mismatches`, so clients can say so. Missing or null values read as
// empty strings, except where the description allows null (Phone Lookup's AptType).
import type { Operation } from './catalog.js';
import { type CallError, callError } from './errors.js';
import { DEFAULT_MAX_BODY_BYTES, type HttpResponse, wasSentWhole } from './http.js';
import type { LeafField, OutputField, OutputShape } from './outputs.js';
import { parseRetryAfter } from './retry.js';
import { statusInfo } from './vocabulary/status-codes.js';

export type LeafValue = string | number | boolean | null;
export type OutputRecord = { readonly [field: string]: LeafValue | { readonly [leaf: string]: LeafValue } };

/** One way a 200's body differed from the API description. */
export interface Mismatch {
  /** The documented name (`Address.Deliverable`), or the dotted name of an unknown field (`Name.Nick`). */
  readonly field: string;
  /**
   * `case`: found under another spelling; `type`: a value of another type, kept (as text unless it
   * converts without loss); `unknown`: not in the description, kept in `extra`; `not-object`: a
   * group that arrived as a single value, kept in `extra` under the group's name.
   */
  readonly problem: 'case' | 'type' | 'unknown' | 'not-object';
  readonly detail: string;
}

export type Outcome =
  | {
      readonly kind: 'record';
      readonly status: 200;
      /** The documented fields, read tolerantly. */
      readonly record: OutputRecord;
      /** Fields the description does not list, flattened with dotted names (`DID`, `Name.Nick`). */
      readonly extra: Readonly<Record<string, LeafValue>>;
      readonly mismatches: readonly Mismatch[];
      /** The body as it arrived (at most the transport's size cap), so it can be read again later. */
      readonly raw: string;
    }
  | { readonly kind: 'no-match'; readonly status: 204 }
  | {
      /**
       * A paid answer whose body was cut, too big, not JSON or not a JSON object. Never sent again
       * automatically: asking again buys it again.
       */
      readonly kind: 'unreadable';
      readonly status: 200;
      /** What arrived, capped at RAW_MAX_CHARS. */
      readonly raw: string;
      readonly reason: string;
    }
  | { readonly kind: 'error'; readonly error: CallError };

/** How much of an unreadable body is kept: enough to see what the service sent. */
export const RAW_MAX_CHARS = 65_536;

/** Objects nested deeper than this in unknown fields are kept as JSON text, not flattened further. */
const MAX_FLATTEN_DEPTH = 8;

/**
 * Reads one response. `nowMs` (epoch ms) lets a Retry-After given as an HTTP date be understood;
 * without it only Retry-After in seconds is.
 */
export function readResponse(op: Operation, response: HttpResponse, nowMs?: number): Outcome {
  const { status } = response;
  if (status === 204) return { kind: 'no-match', status: 204 };
  if (status >= 300 && status < 400) return { kind: 'error', error: redirectError(status, response.headers) };
  if (status !== 200) {
    const info = statusInfo(status);
    const extra: Partial<CallError> = { status };
    // Retry-After matters only where asking again may help (429 and 5xx).
    const retryAfterMs = info.retryable ? parseRetryAfter(response.headers['retry-after'], nowMs) : undefined;
    if (retryAfterMs !== undefined) Object.assign(extra, { retryAfterMs });
    return { kind: 'error', error: callError(info.code ?? 'unexpected-status', info.message, extra) };
  }
  return readBody(op, response);
}

function readBody(op: Operation, response: HttpResponse): Outcome {
  const { body } = response;
  if (response.bodyProblem === 'cut') return unreadable(body, 'the body broke off before it was complete');
  if (response.bodyProblem === 'too-big' || body.length > DEFAULT_MAX_BODY_BYTES)
    return unreadable(body, 'the body is larger than the size limit');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return unreadable(body, 'the body is not JSON');
  }
  if (!isObject(parsed))
    return unreadable(body, `the body is JSON but ${describeValue(parsed)}, not an object`);
  try {
    const state: ReadState = { mismatches: [], extra: {} };
    const record = readShape(op.output, parsed, state);
    return {
      kind: 'record',
      status: 200,
      record,
      extra: state.extra,
      mismatches: state.mismatches,
      raw: body,
    };
  } catch {
    // Only a body nested deeply enough to exhaust the stack gets here.
    return unreadable(body, 'the body is nested too deeply to read');
  }
}

function unreadable(body: string, reason: string): Outcome {
  return { kind: 'unreadable', status: 200, raw: capRaw(body), reason };
}

/** The first `max` characters of a body, without splitting a surrogate pair. */
export function capRaw(text: string, max: number = RAW_MAX_CHARS): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/**
 * No response arrived. Before the request was sent whole (the transport's plain error): a `network`
 * error, retried. After it (the transport's `unansweredError`: the deadline passed or the
 * connection was lost while waiting): `unanswered`, which the service may have billed, never
 * retried automatically.
 */
export function networkError(url: string, cause: unknown): Outcome {
  const host = /^https?:\/\/([^/]+)/.exec(url)?.[1] ?? url;
  const detail = cause instanceof Error ? cause.message : String(cause);
  if (wasSentWhole(cause)) {
    return {
      kind: 'error',
      error: callError(
        'unanswered',
        `May have been paid: the request was sent to ${host} but no answer came (${detail}). The service may have billed it, so it was not sent again.`,
      ),
    };
  }
  return {
    kind: 'error',
    error: callError('network', `Could not reach the service at ${host}: ${detail}`),
  };
}

// scheme://[userinfo@]host[:port] at the start of an absolute Location. Linear: each class stops
// at a character the next one starts with.
const ABSOLUTE_LOCATION = /^[A-Za-z][A-Za-z0-9+.-]{0,20}:\/\/([^/?#\s]{0,300})/;

function redirectError(status: number, headers: Readonly<Record<string, string>>): CallError {
  const location = headers.location;
  let where: string;
  if (location === undefined || location.trim() === '') where = 'without saying where';
  else {
    const authority = ABSOLUTE_LOCATION.exec(location.trim())?.[1];
    // Drop any user:password@ so that credentials in a Location are never repeated.
    where =
      authority === undefined
        ? 'to another path on the same host'
        : `to ${authority.slice(authority.lastIndexOf('@') + 1)}`;
  }
  return callError(
    'redirect',
    `The service answered ${status} (a redirect) ${where}. Redirects are not followed, so nothing was sent there; check the base URL.`,
    { status },
  );
}

interface ReadState {
  readonly mismatches: Mismatch[];
  readonly extra: Record<string, LeafValue>;
}

type Read = { [field: string]: LeafValue | { [leaf: string]: LeafValue } };

function readShape(shape: OutputShape, source: Record<string, unknown>, state: ReadState): Read {
  const top = levelOf(shape);
  const found = matchNames(top, source, state);
  const out: Read = {};
  for (const { name, field, group } of top.entries) {
    const value = documentedValue(found, source, name);
    if (group === undefined) {
      out[name] = readLeaf(field as LeafField, value, name, state);
      continue;
    }
    const values: { [leaf: string]: LeafValue } = {};
    const sourceGroup = isObject(value) ? value : {};
    if (value !== undefined && value !== null && value !== '' && !isObject(value)) {
      // A group that came as one value (Name as "JANE DOE"): keep the value where it can be seen.
      state.mismatches.push({
        field: name,
        problem: 'not-object',
        detail: `should be a group of fields; got ${describeValue(value)}, kept in extra as ${name}`,
      });
      putExtra(state, name, asLeaf(value));
    }
    const leaves = matchNames(group, sourceGroup, state);
    for (const leaf of group.entries) {
      values[leaf.name] = readLeaf(
        leaf.field as LeafField,
        documentedValue(leaves, sourceGroup, leaf.name),
        leaf.path,
        state,
      );
    }
    for (const key of leaves?.unknown ?? []) flattenUnknown(`${name}.${key}`, sourceGroup[key], 1, state);
    out[name] = values;
  }
  for (const key of found?.unknown ?? []) flattenUnknown(key, source[key], 0, state);
  return out;
}

/**
 * One level of an output shape (the record, or one group), worked out once per shape: every answer
 * is read against it, and building the lists for each answer was a good part of reading one.
 */
interface Level {
  readonly entries: readonly {
    readonly name: string;
    readonly field: OutputField;
    /** The dotted name mismatches give (`Address.Zip`). */
    readonly path: string;
    readonly group?: Level;
  }[];
  readonly names: readonly string[];
  readonly nameSet: ReadonlySet<string>;
}

const levels = new WeakMap<OutputShape, Level>();

function levelOf(shape: OutputShape): Level {
  let level = levels.get(shape);
  if (level === undefined) {
    level = makeLevel(shape, '');
    levels.set(shape, level);
  }
  return level;
}

function makeLevel(fields: OutputShape, prefix: string): Level {
  const entries = Object.entries(fields).map(([name, field]) =>
    field.type === 'object'
      ? { name, field, path: prefix + name, group: makeLevel(field.fields, `${name}.`) }
      : { name, field, path: prefix + name },
  );
  const names = entries.map((entry) => entry.name);
  return { entries, names, nameSet: new Set(names) };
}

/** Where matchNames found documented names under other spellings, and the keys it left. */
interface Matched {
  readonly values: Map<string, unknown>;
  readonly unknown: string[];
}

/** A documented name's value: by its own name when the answer was as documented (no Matched). */
function documentedValue(
  matched: Matched | undefined,
  source: Record<string, unknown>,
  name: string,
): unknown {
  if (matched !== undefined) return matched.values.get(name);
  // biome-ignore lint/suspicious/noPrototypeBuiltins: Object.hasOwn is ES2022; this runs in Apps Script's V8 too (ES2020 bundle)
  return Object.prototype.hasOwnProperty.call(source, name) ? source[name] : undefined;
}

/**
 * Finds each documented name among the keys of `source`: exactly, else without regard to case (the
 * first such key). Returns the values found and the keys no documented name claimed; or nothing
 * when every key is a documented name, the answer as documented (then each is read by its name).
 */
function matchNames(level: Level, source: Record<string, unknown>, state: ReadState): Matched | undefined {
  const keys = Object.keys(source);
  if (keys.every((key) => level.nameSet.has(key))) return undefined;
  const claimed = new Set<string>();
  const values = new Map<string, unknown>();
  for (const name of level.names) {
    // biome-ignore lint/suspicious/noPrototypeBuiltins: Object.hasOwn is ES2022; this runs in Apps Script's V8 too (ES2020 bundle)
    if (Object.prototype.hasOwnProperty.call(source, name)) {
      values.set(name, source[name]);
      claimed.add(name);
    }
  }
  const byLowerCase = new Map<string, string>();
  for (const key of keys) {
    const lower = key.toLowerCase();
    if (!claimed.has(key) && !byLowerCase.has(lower)) byLowerCase.set(lower, key);
  }
  for (const entry of level.entries) {
    const { name } = entry;
    if (values.has(name)) continue;
    const key = byLowerCase.get(name.toLowerCase());
    if (key === undefined || claimed.has(key)) continue;
    values.set(name, source[key]);
    claimed.add(key);
    state.mismatches.push({ field: entry.path, problem: 'case', detail: `sent as ${key}` });
  }
  return { values, unknown: keys.filter((k) => !claimed.has(k)) };
}

function emptyOf(field: LeafField): LeafValue {
  return field.nullable ? null : '';
}

const TYPE_WORDS = { string: 'text', number: 'a number', boolean: 'true or false' } as const;

function readLeaf(field: LeafField, value: unknown, path: string, state: ReadState): LeafValue {
  if (value === undefined || value === null) return emptyOf(field);
  if (value === '') return '';
  if (typeof value === field.type) return value as LeafValue;
  // Text that converts without loss ("12" for a number, "true" for a flag) is converted, so that
  // numbers and flags stay what the description promises; anything else is kept as text.
  let kept: LeafValue = asText(value);
  if (field.type === 'number' && typeof value === 'string' && String(Number(value)) === value)
    kept = Number(value);
  if (field.type === 'boolean' && (value === 'true' || value === 'false')) kept = value === 'true';
  state.mismatches.push({
    field: path,
    problem: 'type',
    detail: `should be ${TYPE_WORDS[field.type]}; got ${describeValue(value)}, kept as ${typeof kept === 'string' ? 'text' : describeValue(kept)}`,
  });
  return kept;
}

function flattenUnknown(path: string, value: unknown, depth: number, state: ReadState): void {
  if (isObject(value) && depth < MAX_FLATTEN_DEPTH && Object.keys(value).length > 0) {
    for (const [key, inner] of Object.entries(value))
      flattenUnknown(`${path}.${key}`, inner, depth + 1, state);
    return;
  }
  putExtra(state, path, asLeaf(value));
  state.mismatches.push({ field: path, problem: 'unknown', detail: 'not in the API description; kept' });
}

/** Sets a field on a plain object even when it is named `__proto__` (JSON allows that name). */
function putExtra(state: ReadState, name: string, value: LeafValue): void {
  Object.defineProperty(state.extra, name, { value, enumerable: true, writable: true, configurable: true });
}

/** A scalar as it came; a list or an object as JSON text. */
function asLeaf(value: unknown): LeafValue {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  return JSON.stringify(value) ?? '';
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return value.length > 40 ? `text "${value.slice(0, 37)}..."` : `text ${JSON.stringify(value)}`;
    case 'number':
      return `the number ${value}`;
    case 'boolean':
      return `${value}`;
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}
