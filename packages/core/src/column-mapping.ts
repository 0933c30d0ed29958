// Matches a table's header row (a CSV, a spreadsheet selection) to an operation's input fields:
// `phone`, `Phone Number`, `first_name`, `Postal Code`... Overrides win. Reports, before anything
// is spent, when the mapped columns cannot satisfy the operation's requirement rules.
import type { Operation } from './catalog.js';
import { squash } from './normalise.js';
import { checkRule } from './rules.js';

export interface ColumnMapping {
  /** API field name to the index of its column in the header row. */
  readonly fields: Readonly<Record<string, number>>;
  /** Why the mapping cannot work, or undefined when it can. */
  readonly problem: string | undefined;
}

/**
 * @param overrides API field name (any case) to a header name, e.g. `{ Phone: 'Mobile #' }`.
 */
export function mapColumns(
  op: Operation,
  headers: readonly string[],
  overrides: Readonly<Record<string, string>> = {},
): ColumnMapping {
  const squashed = headers.map((h) => squash(String(h)));
  const fields: Record<string, number> = {};
  const problems: string[] = [];
  for (const [fieldName, header] of Object.entries(overrides)) {
    const field = op.inputs.find((f) => squash(f.name) === squash(fieldName));
    if (!field) {
      problems.push(
        `${op.title} has no field ${fieldName}; its fields are ${op.inputs.map((f) => f.name).join(', ')}`,
      );
      continue;
    }
    const index = headers.indexOf(header) >= 0 ? headers.indexOf(header) : squashed.indexOf(squash(header));
    if (index < 0)
      problems.push(`no column "${header}" for ${field.name}; the columns are ${headers.join(', ')}`);
    else fields[field.name] = index;
  }
  const taken = new Set(Object.values(fields));
  for (const field of op.inputs) {
    if (fields[field.name] !== undefined) continue;
    const names = [field.name, ...field.aliases].map(squash);
    const index = squashed.findIndex((h, i) => !taken.has(i) && names.includes(h));
    if (index >= 0) {
      fields[field.name] = index;
      taken.add(index);
    }
  }
  if (problems.length === 0) {
    const present = (name: string) => fields[name] !== undefined;
    for (const rule of op.rules) {
      const broken = checkRule(rule, present);
      if (broken) problems.push(`no column found: ${broken}`);
    }
  }
  return { fields, problem: problems.length > 0 ? problems.join('; ') : undefined };
}

/** A row of a table as the named input validate() takes. */
export function rowInput(mapping: ColumnMapping, row: readonly unknown[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [field, index] of Object.entries(mapping.fields)) input[field] = row[index];
  return input;
}
