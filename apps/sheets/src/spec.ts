// The nine custom functions as Sheets sees them: name, arguments and help text, derived from core's
// catalog. The build writes each one as a top-level `function NAME(...)` with its JSDoc; the server
// reads the same table to turn a call's arguments into named inputs. Function names are the
// operation titles squashed (`Phone Lookup` → PHONELOOKUP); arguments follow the operation's input
// fields in catalog order, except where a Sheets user is better served by one argument that takes
// several kinds of value (SHAPES).
import {
  FIELD_KINDS,
  type InputField,
  OPERATIONS,
  type Operation,
  type OperationId,
  type Rule,
  squash,
} from '@enrich/core/universal';

export interface ArgSpec {
  /** The parameter name shown in Sheets' help (`first_name`). */
  readonly name: string;
  /** The input fields this argument can fill; more than one means "told apart by the value's shape". */
  readonly fields: readonly InputField[];
}

export interface FunctionSpec {
  readonly name: string;
  readonly op: Operation;
  readonly args: readonly ArgSpec[];
}

/**
 * Arguments that differ from "one per input field". An entry is a field name, or a merged argument:
 * its name and the fields it may fill, told apart by the value (digits → phone, "@" → e-mail, else
 * text). Demographic Append's City/State alternative to Zip is left to the sidebar: a formula takes Zip.
 */
const SHAPES: Partial<Record<OperationId, readonly (string | readonly [string, ...string[]])[]>> = {
  'auto-append': [['phone_email_or_full_name', 'Phone', 'Email', 'FullName'], 'Address1', 'Zip'],
  'demographic-append': ['FName', 'LName', 'Address1', 'Zip', ['phone_or_email', 'Phone', 'Email']],
};

/** The parameter name for a field: its own name when already lower case (`last_name`), else a snake_case alias. */
export function argName(field: InputField): string {
  if (/^[a-z_]+$/.test(field.name)) return field.name;
  return field.aliases.find((a) => /^[a-z]+_[a-z]+$/.test(a)) ?? field.name.toLowerCase();
}

function fieldOf(op: Operation, name: string): InputField {
  const field = op.inputs.find((f) => f.name === name);
  if (!field) throw new Error(`${op.title} has no input field ${name}`);
  return field;
}

function argsOf(op: Operation): ArgSpec[] {
  const shape = SHAPES[op.id];
  if (!shape) return op.inputs.map((f) => ({ name: argName(f), fields: [f] }));
  return shape.map((entry) => {
    if (typeof entry === 'string') {
      const field = fieldOf(op, entry);
      return { name: argName(field), fields: [field] };
    }
    const [name, ...fields] = entry;
    return { name, fields: fields.map((f) => fieldOf(op, f)) };
  });
}

export const FUNCTIONS: readonly FunctionSpec[] = OPERATIONS.map((op) => ({
  name: squash(op.title).toUpperCase(),
  op,
  args: argsOf(op),
}));

export function findFunction(name: string): FunctionSpec | undefined {
  const upper = name.toUpperCase();
  return FUNCTIONS.find((f) => f.name === upper);
}

function fieldHelp(field: InputField): string {
  const bound = field.maxLength === undefined ? '' : `, at most ${field.maxLength} characters`;
  return `${field.label} (${FIELD_KINDS[field.kind].hint}${bound})`;
}

export function argHelp(arg: ArgSpec): string {
  return `${arg.fields.map(fieldHelp).join(', or ')}. One cell or a column range.`;
}

/** The requirement rules in words, for the function's help. */
export function rulesHelp(op: Operation): string {
  return op.rules.map(ruleWords).join('; ');
}

function ruleWords(rule: Rule): string {
  const all = (fields: readonly string[]) => fields.join(' + ');
  switch (rule.kind) {
    case 'required':
      return `needs ${all(rule.fields)}`;
    case 'one-of':
      return `needs ${rule.groups.map(all).join(', or ')}`;
    case 'together':
      return `${all(rule.fields)} go together`;
    case 'needs':
      return `${rule.field} needs ${rule.groups.map(all).join(' or ')}`;
  }
}
