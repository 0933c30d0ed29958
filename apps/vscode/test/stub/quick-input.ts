// Quick inputs of the vscode stand-in, answered by the scripted user in order. They behave as VS
// Code's do where the extension depends on it: Enter on an input box fires onDidAccept whatever the
// validation message says, so the extension must refuse it itself.
import { EventEmitter, QuickInputButtons } from './base';
import { nextReply, type Reply, ui } from './ui';

type Accepting = { value: string; validationMessage: unknown };

class QuickInputStub {
  title: string | undefined;
  step: number | undefined;
  totalSteps: number | undefined;
  ignoreFocusOut = false;
  placeholder: string | undefined;
  buttons: readonly unknown[] = [];
  protected visible = false;
  readonly accept = new EventEmitter<void>();
  readonly hide = new EventEmitter<void>();
  readonly trigger = new EventEmitter<unknown>();
  readonly onDidAccept = this.accept.event;
  readonly onDidHide = this.hide.event;
  readonly onDidTriggerButton = this.trigger.event;

  show(): void {
    this.visible = true;
    setImmediate(() => this.answerNext());
  }

  dispose(): void {
    if (this.visible) {
      this.visible = false;
      this.hide.fire();
    }
  }

  protected answerNext(): void {}

  /** Enter, Back or Escape, then the next reply if the input is still open. */
  protected settle(reply: Reply): boolean {
    if ('back' in reply) {
      this.trigger.fire(QuickInputButtons.Back);
      return true;
    }
    if ('cancel' in reply) {
      this.dispose();
      return true;
    }
    return false;
  }

  protected continueIfOpen(): void {
    if (this.visible) setImmediate(() => this.answerNext());
  }
}

export class InputBoxStub extends QuickInputStub implements Accepting {
  private current = '';
  prompt: string | undefined;
  password = false;
  validationMessage: unknown;
  readonly change = new EventEmitter<string>();
  readonly onDidChangeValue = this.change.event;

  get value(): string {
    return this.current;
  }
  set value(text: string) {
    this.current = text;
  }

  protected override answerNext(): void {
    if (!this.visible) return;
    const reply = nextReply(`input box "${this.title}"`);
    if (this.settle(reply)) return;
    if ('type' in reply) {
      this.current = reply.type;
      this.change.fire(reply.type);
    }
    this.accept.fire();
    // Recorded after Enter: a message still showing then is one the extension refused the value with.
    this.record();
    this.continueIfOpen();
  }

  private record(): void {
    ui.seen.push({
      kind: 'input',
      title: this.title,
      prompt: this.prompt,
      value: this.current,
      validationMessage: typeof this.validationMessage === 'string' ? this.validationMessage : undefined,
      items: [],
      active: [],
      password: this.password,
      step: this.step,
      totalSteps: this.totalSteps,
    });
  }
}

export interface Item {
  readonly label: string;
}

export class QuickPickStub<T extends Item> extends QuickInputStub {
  items: readonly T[] = [];
  activeItems: readonly T[] = [];
  selectedItems: readonly T[] = [];
  canSelectMany = false;

  protected override answerNext(): void {
    if (!this.visible) return;
    const reply = nextReply(`quick pick "${this.title}"`);
    const before = (this.canSelectMany ? this.selectedItems : this.activeItems).map((i) => i.label);
    if (this.settle(reply)) return;
    if ('pick' in reply) {
      const labels = typeof reply.pick === 'string' ? [reply.pick] : reply.pick;
      const picked = labels.map((label) => {
        const item = this.items.find((i) => i.label === label);
        if (!item) throw new Error(`No item "${label}" in ${this.items.map((i) => i.label).join(', ')}`);
        return item;
      });
      this.selectedItems = picked;
      if (!this.canSelectMany) this.activeItems = picked;
    } else if (!this.canSelectMany) {
      this.selectedItems = this.activeItems.slice(0, 1);
    }
    ui.seen.push({
      kind: 'pick',
      title: this.title,
      prompt: this.placeholder,
      value: '',
      validationMessage: undefined,
      items: this.items.map((i) => i.label),
      active: before,
      password: false,
      step: this.step,
      totalSteps: this.totalSteps,
    });
    this.accept.fire();
    this.continueIfOpen();
  }
}

interface InputBoxOptions {
  title?: string;
  prompt?: string;
  value?: string;
  password?: boolean;
  validateInput?: (value: string) => string | undefined | null | Promise<string | undefined | null>;
}

export async function showQuickPick<T extends Item>(
  items: readonly T[] | Promise<readonly T[]>,
  options: { title?: string } = {},
): Promise<T | undefined> {
  const list = await items;
  const reply = nextReply(`showQuickPick "${options.title}"`);
  ui.seen.push({
    kind: 'pick',
    title: options.title,
    prompt: undefined,
    value: '',
    validationMessage: undefined,
    items: list.map((i) => i.label),
    active: [],
    password: false,
    step: undefined,
    totalSteps: undefined,
  });
  if (!('pick' in reply)) return undefined;
  const label = typeof reply.pick === 'string' ? reply.pick : reply.pick[0];
  const item = list.find((i) => i.label === label);
  if (!item) throw new Error(`No item "${label}" in ${list.map((i) => i.label).join(', ')}`);
  return item;
}

export async function showInputBox(options: InputBoxOptions = {}): Promise<string | undefined> {
  for (;;) {
    const reply = nextReply(`showInputBox "${options.title}"`);
    if ('cancel' in reply) return undefined;
    const value = 'type' in reply ? reply.type : (options.value ?? '');
    const problem = (await options.validateInput?.(value)) ?? undefined;
    ui.seen.push({
      kind: 'showInputBox',
      title: options.title,
      prompt: options.prompt,
      value,
      validationMessage: problem,
      items: [],
      active: [],
      password: options.password === true,
      step: undefined,
      totalSteps: undefined,
    });
    // VS Code keeps the box open while the value is refused: the next reply is the next attempt.
    if (!problem) return value;
  }
}
