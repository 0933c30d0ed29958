import { getOperation, OPERATIONS, type Operation, validate } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { choicesOf, fieldSteps, groupLabel } from '../../src/input/plan';

const names = (op: Operation, picks: number[][]) =>
  fieldSteps(op, picks).map((s) => `${s.field.name}${s.required ? '' : '?'}`);

describe('choices derived from the one-of rules', () => {
  it('asks Auto Append for phone, e-mail, or name + address + ZIP, one of them', () => {
    const op = getOperation('auto-append');
    const [choice, ...rest] = choicesOf(op);
    expect(rest).toEqual([]);
    expect(choice?.many).toBe(false);
    expect(choice?.rule.groups.map((g) => groupLabel(op, g))).toEqual([
      'Phone',
      'E-mail',
      'Full name + Address line 1 + ZIP code',
    ]);
  });

  it('asks Demographic Append for ZIP or City + State, and for phone or e-mail', () => {
    const op = getOperation('demographic-append');
    expect(choicesOf(op).map((c) => c.rule.groups.map((g) => groupLabel(op, g)))).toEqual([
      ['ZIP code', 'City + State'],
      ['Phone', 'E-mail'],
    ]);
  });

  it('lets ID Verify tick several of its six items', () => {
    const choices = choicesOf(getOperation('id-verify'));
    expect(choices).toHaveLength(1);
    expect(choices[0]?.many).toBe(true);
  });

  it('asks nothing first where every field is simply required', () => {
    for (const id of [
      'email-append',
      'phone-append',
      'email-lookup',
      'phone-lookup',
      'email-verify',
      'tcpa-verify',
    ] as const) {
      expect(choicesOf(getOperation(id))).toEqual([]);
    }
  });
});

describe('fields asked after the choices', () => {
  it('asks Auto Append only for the picked group', () => {
    const op = getOperation('auto-append');
    expect(names(op, [[0]])).toEqual(['Phone']);
    expect(names(op, [[1]])).toEqual(['Email']);
    expect(names(op, [[2]])).toEqual(['FullName', 'Address1', 'Zip']);
  });

  it('asks Demographic Append for the name and address, then the picked alternatives', () => {
    const op = getOperation('demographic-append');
    expect(names(op, [[0], [1]])).toEqual(['FName', 'LName', 'Address1', 'Zip', 'Email']);
    expect(names(op, [[1], [0]])).toEqual(['FName', 'LName', 'Address1', 'City', 'State', 'Phone']);
  });

  it('pulls in ZIP when ID Verify is given an address (the needs rule)', () => {
    const op = getOperation('id-verify');
    const address =
      op.rules[0]?.kind === 'one-of' ? op.rules[0].groups.findIndex((g) => g[0] === 'Address1') : -1;
    expect(names(op, [[address]])).toEqual(['Address1', 'Zip']);
  });

  it('gives, for every operation and every pick, steps whose filled answers pass core validation', () => {
    // Sample values by kind, taken from the catalog's own examples where it has them.
    const samples: Record<string, string> = { state: 'MA', text: 'Sam' };
    for (const op of OPERATIONS) {
      for (const field of op.inputs) {
        const example = op.example[field.name];
        if (example && samples[field.kind] === undefined) samples[field.kind] = example;
      }
    }
    for (const op of OPERATIONS) {
      for (const picks of everyPick(op)) {
        const input: Record<string, string> = {};
        for (const step of fieldSteps(op, picks)) {
          if (step.required) input[step.field.name] = samples[step.field.kind] ?? 'x';
        }
        const checked = validate(op, input);
        expect(checked.ok ? 'ok' : checked.message, `${op.id} ${JSON.stringify(picks)}`).toBe('ok');
      }
    }
  });
});

function everyPick(op: Operation): number[][][] {
  let combos: number[][][] = [[]];
  for (const choice of choicesOf(op)) {
    const options = choice.rule.groups.map((_, i) => [i]);
    if (choice.many) options.push(choice.rule.groups.map((_, i) => i));
    combos = combos.flatMap((combo) => options.map((option) => [...combo, option]));
  }
  return combos;
}
