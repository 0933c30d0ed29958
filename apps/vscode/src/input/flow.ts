// The multi-step quick input of an operation: first the choices (plan.ts), then one input box
// per field, each checked as the user types with core's own messages. Back goes one step back;
// Escape cancels the whole call before anything is sent.
import {
  type CleanInput,
  checkRule,
  type InputField,
  type Operation,
  validate,
  validateField,
} from '@enrich/core';
import * as vscode from 'vscode';
import { type Choice, choicesOf, type FieldStep, fieldSteps, groupLabel } from './plan';

const BACK = Symbol('back');
type Answer<T> = T | typeof BACK | undefined;

interface Position {
  readonly step: number;
  readonly totalSteps: number;
}

/** Values to offer first, by field name (from the editor's selection). */
export type Prefill = Readonly<Record<string, string>>;

/** Asks for an operation's input; undefined when the user cancelled. */
export async function askInput(op: Operation, prefill: Prefill = {}): Promise<CleanInput | undefined> {
  const choices = choicesOf(op);
  const picks: number[][] = [];
  const values: Record<string, string> = { ...prefill };
  for (let i = 0; ; ) {
    const steps = i < choices.length ? undefined : fieldSteps(op, picks);
    // Before the choices are made, the count assumes the groups offered first.
    const planned =
      steps ??
      fieldSteps(
        op,
        choices.map((choice, c) => picks[c] ?? preferredGroups(choice, prefill)),
      );
    const totalSteps = choices.length + planned.length;
    const position = { step: i + 1, totalSteps };
    let answer: Answer<unknown>;
    if (i < choices.length) {
      const choice = choices[i] as Choice;
      const picked = await pickGroups(op, choice, position, picks[i] ?? preferredGroups(choice, prefill));
      if (Array.isArray(picked)) picks[i] = picked;
      answer = picked;
    } else {
      const step = steps?.[i - choices.length];
      if (!step) return finish(op, steps ?? [], values);
      const value = await askField(op, step, position, values[step.field.name] ?? '');
      if (typeof value === 'string') values[step.field.name] = value;
      answer = value;
    }
    if (answer === undefined) return undefined;
    i = answer === BACK ? Math.max(0, i - 1) : i + 1;
  }
}

function finish(op: Operation, steps: readonly FieldStep[], values: Record<string, string>) {
  const input: Record<string, string> = {};
  for (const { field } of steps) {
    const value = values[field.name];
    if (value) input[field.name] = value;
  }
  const checked = validate(op, input);
  if (checked.ok) return checked.input;
  // The steps enforce the rules, so this means the plan and the rules disagree: say so, send nothing.
  void vscode.window.showErrorMessage(checked.message);
  return undefined;
}

// With a prefilled phone or e-mail, the group holding it is offered first.
function preferredGroups(choice: Choice, prefill: Prefill): number[] {
  const index = choice.rule.groups.findIndex((group) => group.some((name) => prefill[name] !== undefined));
  return index >= 0 ? [index] : choice.many ? [] : [0];
}

interface GroupItem extends vscode.QuickPickItem {
  readonly index: number;
}

function pickGroups(
  op: Operation,
  choice: Choice,
  position: Position,
  preferred: readonly number[],
): Promise<Answer<number[]>> {
  const items: GroupItem[] = choice.rule.groups.map((group, index) => ({
    label: groupLabel(op, group),
    description: group.length > 1 ? 'together' : undefined,
    index,
  }));
  const pick = vscode.window.createQuickPick<GroupItem>();
  pick.title = choice.many ? `${op.title}: which do you have?` : `${op.title}: which will you give?`;
  pick.placeholder = choice.many
    ? 'Tick every one you can give (at least one), then press Enter'
    : 'Pick one; the next steps ask for it';
  pick.step = position.step;
  pick.totalSteps = position.totalSteps;
  pick.canSelectMany = choice.many;
  pick.ignoreFocusOut = true;
  pick.items = items;
  const preferredItems = items.filter((item) => preferred.includes(item.index));
  if (choice.many) pick.selectedItems = preferredItems;
  else pick.activeItems = preferredItems.slice(0, 1);
  if (position.step > 1) pick.buttons = [vscode.QuickInputButtons.Back];
  return present(pick, (done) => [
    pick.onDidAccept(() => {
      const chosen = choice.many ? pick.selectedItems : pick.selectedItems.slice(0, 1);
      const picked = chosen.length > 0 ? chosen : choice.many ? [] : pick.activeItems.slice(0, 1);
      if (picked.length === 0) {
        pick.placeholder = `Tick at least one: ${checkRule(choice.rule, () => false)}`;
        return;
      }
      done(picked.map((item) => item.index));
    }),
  ]);
}

function askField(
  op: Operation,
  step: FieldStep,
  position: Position,
  value: string,
): Promise<Answer<string>> {
  const { field, required } = step;
  const box = vscode.window.createInputBox();
  box.title = `${op.title}: ${field.label}`;
  box.prompt = required
    ? `${field.label} (${field.name})`
    : `${field.label} (${field.name}), optional: leave blank to skip`;
  box.placeholder = placeholderFor(op, field);
  box.step = position.step;
  box.totalSteps = position.totalSteps;
  box.ignoreFocusOut = true;
  box.value = value;
  if (position.step > 1) box.buttons = [vscode.QuickInputButtons.Back];
  // As the user types: only the field's own bounds; a blank is refused only on Enter.
  const problem = (text: string, accepting: boolean): string | undefined => {
    const checked = validateField(op, field.name, text);
    if (!checked.ok) return checked.message;
    if (checked.value === undefined && required && accepting) {
      return checkRule({ kind: 'required', fields: [field.name] }, () => false);
    }
    return undefined;
  };
  if (value) box.validationMessage = problem(value, false);
  return present(box, (done) => [
    box.onDidChangeValue((text) => {
      box.validationMessage = problem(text, false);
    }),
    box.onDidAccept(() => {
      const message = problem(box.value, true);
      box.validationMessage = message;
      if (message) return;
      const checked = validateField(op, field.name, box.value);
      done(checked.ok ? (checked.value ?? '') : '');
    }),
  ]);
}

function placeholderFor(op: Operation, field: InputField): string {
  const example = op.example[field.name];
  const bound = field.maxLength !== undefined ? ` (at most ${field.maxLength} characters)` : '';
  return example ? `e.g. ${example}${bound}` : bound.trim();
}

/** Shows a quick input and settles once: with a value, Back, or undefined when it is hidden. */
function present<T>(
  input: vscode.QuickPick<GroupItem> | vscode.InputBox,
  listen: (done: (value: T) => void) => vscode.Disposable[],
): Promise<Answer<T>> {
  return new Promise((resolve) => {
    let settled = false;
    const disposables: vscode.Disposable[] = [];
    const settle = (answer: Answer<T>) => {
      if (settled) return;
      settled = true;
      resolve(answer);
      for (const d of disposables) d.dispose();
      input.dispose();
    };
    disposables.push(
      ...listen((value) => settle(value)),
      input.onDidTriggerButton((button) => {
        if (button === vscode.QuickInputButtons.Back) settle(BACK);
      }),
      input.onDidHide(() => settle(undefined)),
    );
    input.show();
  });
}
