// Checks an input against an operation's bounds and requirement rules, locally, before anything
// is sent: bad input costs no transaction. Never throws, whatever it is given.
import * as v from 'valibot';
import type { Operation } from './catalog.js';
import type { InputField } from './fields.js';
import { isBlank, normaliseValue, removeInvisible, squash } from './normalise.js';
import { checkRule, ruleFields } from './rules.js';
import { FIELD_KINDS } from './vocabulary/field-kinds.js';

/** An input after normalisation: only the fields that were given, with API field names. */
export type CleanInput = Readonly<Record<string, string>>;

/** A clean input in words, the fields as the API names them: "Phone 5550102030, LName Doe". */
export function inputText(input: CleanInput): string {
  return Object.entries(input)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');
}

export interface Issue {
  /** The API field name, or the fields of the broken rule joined with "+". */
  readonly field: string;
  readonly message: string;
}

export type Validation =
  | { readonly ok: true; readonly input: CleanInput }
  | { readonly ok: false; readonly issues: readonly Issue[]; readonly message: string };

/**
 * Longer raw values are refused before normalisation or any pattern sees them. No field of the API
 * takes more than 100 characters; whitespace and formatting that normalisation removes fit well
 * within this.
 */
export const MAX_RAW_INPUT_CHARS = 1000;

function fieldSchema(field: InputField) {
  const checks: v.PipeItem<string, string, v.BaseIssue<unknown>>[] = [];
  // The length bound comes first, so that no pattern ever runs on an over-long value.
  if (field.maxLength !== undefined) {
    const max = field.maxLength;
    checks.push(
      v.maxLength(
        max,
        (i) => `${field.name} must be at most ${max} characters; got ${String(i.input).length}`,
      ),
    );
  }
  // The words for a pattern or check are written by checkValue, which knows the cell as typed.
  const { pattern, accepts } = FIELD_KINDS[field.kind];
  if (pattern) checks.push(v.regex(pattern));
  if (accepts) checks.push(v.check(accepts));
  return v.pipe(v.string(), ...checks);
}

const schemaCache = new WeakMap<Operation, Map<string, ReturnType<typeof fieldSchema>>>();

function schemasOf(op: Operation) {
  let schemas = schemaCache.get(op);
  if (!schemas) {
    schemas = new Map(op.inputs.map((f) => [f.name, fieldSchema(f)]));
    schemaCache.set(op, schemas);
  }
  return schemas;
}

/**
 * The inputs validate() returned, with the operation each was checked for. A client checks an input
 * first (to refuse it in its own words, to find its request key) and then hands it to callOperation,
 * which checks what it is given: an input validate() made for that operation, frozen so that nothing
 * changed it since, is known by its identity and not checked a second time. Any other object, a
 * copy included, is checked in full.
 */
const checkedFor = new WeakMap<CleanInput, Operation>();

/**
 * Normalises and checks one input. Field names are matched exactly first, then loosely
 * (`phone` finds `Phone`), so callers may pass what the user typed; fields the operation does
 * not take are reported, not silently dropped. Its clean input is frozen, and given again it is
 * answered at once (see checkedFor).
 */
export function validate(op: Operation, raw: unknown): Validation {
  if (checkedFor.get(raw as CleanInput) === op) return { ok: true, input: raw as CleanInput };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return fail([{ field: '(input)', message: 'The input must be a set of named fields' }]);
  }
  const issues: Issue[] = [];
  const clean: Record<string, string> = {};
  // The name each field was given under: `Phone` and `phone` both name Phone, and two different
  // values for one field are refused rather than one of them sent (and paid for) silently.
  const givenAs = new Map<string, string>();
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const field = matchField(op, key);
    if (!field) {
      if (isBlank(value)) continue;
      issues.push({
        field: key,
        message: `${op.title} does not take ${key}; it takes ${op.inputs.map((f) => f.name).join(', ')}`,
      });
      continue;
    }
    const checked = checkValue(op, field, value);
    if (!checked.ok) {
      issues.push({ field: field.name, message: checked.message });
      continue;
    }
    if (checked.value === undefined) continue;
    const earlier = givenAs.get(field.name);
    if (earlier !== undefined && clean[field.name] !== checked.value) {
      issues.push({
        field: field.name,
        message: `${field.name} is given twice with different values (as ${earlier} and as ${key}); give it once`,
      });
      continue;
    }
    givenAs.set(field.name, key);
    clean[field.name] = checked.value;
  }
  if (issues.length > 0) return fail(issues);
  const present = (name: string) => clean[name] !== undefined;
  for (const rule of op.rules) {
    const broken = checkRule(rule, present);
    if (broken) issues.push({ field: ruleFields(rule).join('+'), message: broken });
  }
  if (issues.length > 0) return fail(issues, `${op.title}: `);
  const input = Object.freeze(inCatalogOrder(op, clean));
  checkedFor.set(input, op);
  return { ok: true, input };
}

/** The operation's field for a name as a user or a header might spell it. */
export function matchField(op: Operation, key: string): InputField | undefined {
  const exact = op.inputs.find((f) => f.name === key);
  if (exact) return exact;
  const loose = squash(key);
  return op.inputs.find((f) => squash(f.name) === loose);
}

function inCatalogOrder(op: Operation, clean: Record<string, string>): CleanInput {
  const ordered: Record<string, string> = {};
  for (const f of op.inputs) {
    const value = clean[f.name];
    if (value !== undefined) ordered[f.name] = value;
  }
  return ordered;
}

/** The bound checked before anything else looks at a value: a cell of 120 KB costs no CPU. */
function rawTooLong(field: InputField, value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length <= MAX_RAW_INPUT_CHARS) return undefined;
  return field.maxLength !== undefined
    ? `${field.name} must be at most ${field.maxLength} characters; got ${value.length}`
    : `${field.name} is far too long; got ${value.length} characters`;
}

function fail(issues: Issue[], prefix = ''): Validation {
  return { ok: false, issues, message: prefix + issues.map((i) => i.message).join('; ') };
}

export type FieldCheck =
  | { readonly ok: true; readonly value: string | undefined }
  | { readonly ok: false; readonly message: string };

/**
 * Normalises and checks one field on its own, with the same messages as validate(): for prompts
 * that check as the user types. `value` is undefined when the field was left blank; whether a blank
 * is allowed is for the requirement rules, which need the whole input.
 */
export function validateField(op: Operation, fieldName: string, raw: unknown): FieldCheck {
  const field = matchField(op, fieldName);
  if (!field) {
    return {
      ok: false,
      message: `${op.title} does not take ${fieldName}; it takes ${op.inputs.map((f) => f.name).join(', ')}`,
    };
  }
  return checkValue(op, field, raw);
}

/** One value of a field: too long, not text, blank (undefined), or normalised and checked. */
function checkValue(op: Operation, field: InputField, raw: unknown): FieldCheck {
  const tooLong = rawTooLong(field, raw);
  if (tooLong) return { ok: false, message: tooLong };
  const normalised = normaliseValue(field.kind, raw);
  if ('problem' in normalised) return { ok: false, message: `${field.name} ${normalised.problem}` };
  if (normalised.value === undefined) return { ok: true, value: undefined };
  const schema = schemasOf(op).get(field.name) as ReturnType<typeof fieldSchema>;
  const result = v.safeParse(schema, normalised.value, { abortPipeEarly: true });
  if (result.success) return { ok: true, value: result.output };
  const issue = result.issues[0];
  if (issue?.type === 'regex' || issue?.type === 'check') {
    // Judged on the normalised value, quoted as typed: `got "n/a"`, not the "na" left of it.
    const typed = removeInvisible(String(raw)).trim();
    return {
      ok: false,
      message: `${field.name} ${FIELD_KINDS[field.kind].problem(normalised.value, typed)}`,
    };
  }
  return { ok: false, message: issue?.message ?? `${field.name} is not valid` };
}
