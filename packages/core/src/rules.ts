// Requirement rules: which combinations of input fields an operation accepts.
// They are data, so that validation, the sandbox, the OpenAPI document and the VS Code prompts
// all read the same statement of them.

export type Rule =
  /** Every one of these fields must be given. */
  | { readonly kind: 'required'; readonly fields: readonly string[] }
  /** At least one of these groups must be given whole. */
  | { readonly kind: 'one-of'; readonly groups: readonly (readonly string[])[] }
  /** Either all of these fields or none of them. */
  | { readonly kind: 'together'; readonly fields: readonly string[] }
  /** When `field` is given, at least one of the groups must be given whole too. */
  | { readonly kind: 'needs'; readonly field: string; readonly groups: readonly (readonly string[])[] };

export type Present = (field: string) => boolean;

/** A broken rule, in words a non-programmer understands, or undefined when the rule holds. */
export function checkRule(rule: Rule, present: Present): string | undefined {
  switch (rule.kind) {
    case 'required': {
      const missing = rule.fields.filter((f) => !present(f));
      if (missing.length === 0) return undefined;
      return `${joinAnd(missing)} ${missing.length === 1 ? 'is' : 'are'} required`;
    }
    case 'one-of':
      if (rule.groups.some((g) => g.every(present))) return undefined;
      return `give ${joinOr(rule.groups.map(joinAnd))}`;
    case 'together': {
      const given = rule.fields.filter(present);
      if (given.length === 0 || given.length === rule.fields.length) return undefined;
      const missing = rule.fields.filter((f) => !present(f));
      return `${joinAnd(rule.fields)} go together: ${joinAnd(given)} given without ${joinAnd(missing)}`;
    }
    case 'needs':
      if (!present(rule.field) || rule.groups.some((g) => g.every(present))) return undefined;
      return `${rule.field} needs ${joinOr(rule.groups.map(joinAnd))} as well`;
  }
}

/** Fields a rule names, for "which field broke it" and for listing an operation's groups. */
export function ruleFields(rule: Rule): readonly string[] {
  switch (rule.kind) {
    case 'required':
    case 'together':
      return rule.fields;
    case 'one-of':
      return rule.groups.flat();
    case 'needs':
      return [rule.field, ...rule.groups.flat()];
  }
}

function joinAnd(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function joinOr(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', or ')}, or ${items[items.length - 1]}`;
}
