// The record inside a 200's body, read against the operation's output shape (outputs.ts).
// Documented fields are matched by their exact name, else without regard to case; a value of an
// unexpected type is kept as text, or converted where the text converts without loss (leaf-text.ts);
// fields the description does not list are kept in `extra` under dotted names. Every difference from
// the description is listed in `mismatches`.
import { flagFromText, numberFromText } from './leaf-text.js';
import type { LeafField, OutputField, OutputShape } from './outputs.js';

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

/** Objects nested deeper than this in unknown fields are kept as JSON text, not flattened further. */
const MAX_FLATTEN_DEPTH = 8;

interface ReadState {
  readonly mismatches: Mismatch[];
  readonly extra: Record<string, LeafValue>;
}

type Read = { [field: string]: LeafValue | { [leaf: string]: LeafValue } };

/** A 200's JSON object read against the operation's output shape. */
export function readRecord(
  shape: OutputShape,
  source: Record<string, unknown>,
): { record: OutputRecord; extra: Record<string, LeafValue>; mismatches: Mismatch[] } {
  const state: ReadState = { mismatches: [], extra: {} };
  const record = readShape(shape, source, state);
  return { record, extra: state.extra, mismatches: state.mismatches };
}

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
  if (typeof value === 'string')
    kept = (field.type === 'number' ? numberFromText : flagFromText)(value) ?? kept;
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

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function describeValue(value: unknown): string {
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
