// Which questions a call asks, derived from the operation's input fields and requirement rules in
// the core catalog; nothing here names a field. Pure: the prompts that ask them are flow.ts.
//
// - A 'one-of' rule with a few groups lists alternatives ("Phone, or E-mail, or Full name +
//   Address line 1 + ZIP code"): the user picks one first, and is then asked for that group's fields
//   only. A 'one-of' with many single fields (ID Verify's "any of these six") means "at least one":
//   the user ticks the ones they have, since picking only one would throw the rest away.
// - 'required' fields, and the fields of picked groups, must be filled; 'together' and 'needs'
//   pull in their partners; any other field is optional and may be left blank.
import type { InputField, Operation, Rule } from '@enrich/core';

/** Up to this many groups, a one-of is a choice of one; past it, a pick of several. */
export const MAX_ALTERNATIVES = 3;

export type OneOfRule = Extract<Rule, { kind: 'one-of' }>;
export type Group = readonly string[];

export interface Choice {
  readonly rule: OneOfRule;
  /** True for "tick the ones you have", false for "pick one". */
  readonly many: boolean;
}

export interface FieldStep {
  readonly field: InputField;
  readonly required: boolean;
}

export function choicesOf(op: Operation): readonly Choice[] {
  return op.rules
    .filter((rule): rule is OneOfRule => rule.kind === 'one-of')
    .map((rule) => ({ rule, many: rule.groups.length > MAX_ALTERNATIVES }));
}

/** "Full name + Address line 1 + ZIP code": a group in the words of its fields' labels. */
export function groupLabel(op: Operation, group: Group): string {
  return group.map((name) => op.inputs.find((f) => f.name === name)?.label ?? name).join(' + ');
}

/**
 * The fields to ask for, in the catalog's order, once every choice has its picked groups:
 * `picks[i]` holds the indexes, in its rule's `groups`, of the groups picked for `choicesOf(op)[i]`.
 */
export function fieldSteps(op: Operation, picks: readonly (readonly number[])[]): readonly FieldStep[] {
  const required = new Set<string>();
  const skipped = new Set<string>();
  const choices = choicesOf(op);
  choices.forEach((choice, i) => {
    const picked = new Set(picks[i] ?? []);
    choice.rule.groups.forEach((group, g) => {
      for (const name of group) (picked.has(g) ? required : skipped).add(name);
    });
  });
  for (const rule of op.rules) if (rule.kind === 'required') for (const f of rule.fields) required.add(f);
  // 'together' and 'needs' can pull in each other's fields: repeat until nothing changes.
  for (let changed = true; changed; ) {
    changed = false;
    const need = (name: string) => {
      if (!required.has(name)) {
        required.add(name);
        changed = true;
      }
    };
    for (const rule of op.rules) {
      if (rule.kind === 'together' && rule.fields.some((f) => required.has(f))) rule.fields.forEach(need);
      if (rule.kind === 'needs' && required.has(rule.field)) {
        const met = rule.groups.some((g) => g.every((f) => required.has(f)));
        if (!met) rule.groups[0]?.forEach(need);
      }
    }
  }
  return op.inputs
    .filter((f) => required.has(f.name) || !skipped.has(f.name))
    .map((field) => ({ field, required: required.has(field.name) }));
}
