// A stand-in for the `vscode` module, for unit tests (vitest aliases `vscode` to this file). It
// implements the part of the API the extension uses, and a scripted user (`ui`) who answers quick
// inputs in order and records what the extension showed: messages, documents, progress, output.
// Quick inputs behave as VS Code's do where the extension depends on it: Enter on an input box
// fires onDidAccept whatever the validation message says, so the extension must refuse it itself.

import { readFileSync } from 'node:fs';

type Listener<T> = (event: T) => unknown;

export class Disposable {
  constructor(private readonly onDispose: () => void = () => {}) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => {
      for (const item of items) item.dispose();
    });
  }
  dispose(): void {
    this.onDispose();
  }
}

export class EventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  readonly event = (listener: Listener<T>): Disposable => {
    this.listeners.add(listener);
    return new Disposable(() => this.listeners.delete(listener));
  };
  fire(event: T): void {
    for (const listener of [...this.listeners]) listener(event);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}
  static from(parts: {
    scheme: string;
    authority?: string;
    path?: string;
    query?: string;
    fragment?: string;
  }) {
    return new Uri(
      parts.scheme,
      parts.authority ?? '',
      parts.path ?? '',
      parts.query ?? '',
      parts.fragment ?? '',
    );
  }
  static file(path: string) {
    return new Uri('file', '', path, '', '');
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}:${this.path}${this.query ? `?${this.query}` : ''}`;
  }
}

export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}

export class ThemeIcon {
  constructor(readonly id: string) {}
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: string;
  contextValue?: string;
  iconPath?: ThemeIcon;
  command?: { command: string; title: string; arguments?: unknown[] };
  constructor(
    readonly label: string,
    readonly collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
}

/** A webview panel: the page's HTML, what the extension posted to it, and a way to click its buttons. */
export class WebviewPanelStub {
  title: string;
  disposed = false;
  revealed = 0;
  private readonly received = new EventEmitter<unknown>();
  private readonly disposedEvent = new EventEmitter<void>();
  readonly posted: unknown[] = [];
  readonly webview = {
    html: '',
    cspSource: 'vscode-webview://stub',
    onDidReceiveMessage: this.received.event,
    postMessage: async (message: unknown) => {
      this.posted.push(message);
      return true;
    },
  };
  readonly onDidDispose = this.disposedEvent.event;
  constructor(
    readonly viewType: string,
    title: string,
    readonly options: Record<string, unknown>,
  ) {
    this.title = title;
  }
  reveal(): void {
    this.revealed++;
  }
  /** What the page's script sends when a button is pressed. */
  async send(message: unknown): Promise<void> {
    this.received.fire(message);
    // Lets the extension's async handler finish.
    await new Promise((r) => setTimeout(r, 10));
  }
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.disposedEvent.fire();
  }
}

export enum ConfigurationTarget {
  Global = 1,
  Workspace = 2,
  WorkspaceFolder = 3,
}

export const QuickInputButtons = { Back: { iconPath: new ThemeIcon('arrow-left') } };

export class CancellationTokenSource {
  private readonly cancelled = new EventEmitter<void>();
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: this.cancelled.event,
  };
  cancel(): void {
    if (this.token.isCancellationRequested) return;
    this.token.isCancellationRequested = true;
    this.cancelled.fire();
  }
  dispose(): void {}
}

// ---- The scripted user and what the extension showed ----

export type Reply =
  /** Types this into the input box (replacing its value) and presses Enter. */
  | { readonly type: string }
  /** Picks the items with these labels and presses Enter. */
  | { readonly pick: string | readonly string[] }
  /** Presses Enter on whatever is active or ticked already. */
  | { readonly accept: true }
  | { readonly back: true }
  | { readonly cancel: true };

export interface Message {
  readonly severity: 'info' | 'warning' | 'error';
  readonly text: string;
  readonly actions: readonly string[];
  readonly modal: boolean;
  /** A modal's second line (MessageOptions.detail). */
  readonly detail: string | undefined;
}

/** What a quick input looked like when the user answered it. */
export interface Seen {
  readonly kind: 'input' | 'pick' | 'showInputBox';
  readonly title: string | undefined;
  readonly prompt: string | undefined;
  readonly value: string;
  readonly validationMessage: string | undefined;
  readonly items: readonly string[];
  readonly active: readonly string[];
  readonly password: boolean;
  readonly step: number | undefined;
  readonly totalSteps: number | undefined;
}

export interface ProgressRecord {
  readonly title: string | undefined;
  readonly messages: string[];
  readonly source: CancellationTokenSource;
}

function freshUi() {
  return {
    replies: [] as Reply[],
    seen: [] as Seen[],
    messages: [] as Message[],
    /** Chooses a message's action; by default none (the message is dismissed). */
    answer: (_message: Message): string | undefined => undefined,
    documents: [] as { uri: Uri; text: string }[],
    progress: [] as ProgressRecord[],
    /** Called when a progress starts, e.g. to cancel it. */
    onProgress: (_record: ProgressRecord): void => {},
    output: [] as string[],
    statusBarMessages: [] as string[],
    executed: [] as { command: string; args: unknown[] }[],
    clipboard: '',
    settings: new Map<string, unknown>(),
    trees: new Map<string, unknown>(),
    statusItems: [] as { text: string; tooltip: string; command: string | undefined }[],
    panels: [] as WebviewPanelStub[],
  };
}

export let ui = freshUi();

/** Queues the user's next answers to quick inputs, in order. */
export function reply(...replies: Reply[]): void {
  ui.replies.push(...replies);
}

function nextReply(what: string): Reply {
  const next = ui.replies.shift();
  if (!next) throw new Error(`The test gave no reply for ${what}`);
  return next;
}

// ---- window ----

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

class InputBoxStub extends QuickInputStub implements Accepting {
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

interface Item {
  readonly label: string;
}

class QuickPickStub<T extends Item> extends QuickInputStub {
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

async function showQuickPick<T extends Item>(
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

async function showInputBox(options: InputBoxOptions = {}): Promise<string | undefined> {
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

function message(severity: Message['severity']) {
  return async (text: string, ...rest: unknown[]): Promise<string | undefined> => {
    const options =
      rest[0] && typeof rest[0] === 'object' ? (rest.shift() as { modal?: boolean; detail?: string }) : {};
    const actions = rest.filter((r): r is string => typeof r === 'string');
    const shown: Message = { severity, text, actions, modal: options.modal === true, detail: options.detail };
    ui.messages.push(shown);
    const chosen = ui.answer(shown);
    return chosen !== undefined && actions.includes(chosen) ? chosen : undefined;
  };
}

class OutputChannelStub {
  constructor(readonly name: string) {}
  private line(level: string) {
    return (text: string) => {
      ui.output.push(`[${level}] ${text}`);
    };
  }
  info = this.line('info');
  warn = this.line('warning');
  error = this.line('error');
  appendLine = this.line('text');
  dispose(): void {}
}

class StatusBarItemStub {
  text = '';
  tooltip = '';
  name = '';
  command: string | undefined;
  backgroundColor: unknown;
  constructor(readonly id: string) {
    ui.statusItems.push(this);
  }
  show(): void {}
  hide(): void {}
  dispose(): void {}
}

export const window = {
  activeTextEditor: undefined as
    | undefined
    | { selection: { isEmpty: boolean }; document: { getText(selection: unknown): string } },
  createInputBox: () => new InputBoxStub(),
  createQuickPick: <T extends Item>() => new QuickPickStub<T>(),
  showInputBox,
  showQuickPick,
  async showOpenDialog(): Promise<Uri[] | undefined> {
    return undefined;
  },
  showInformationMessage: message('info'),
  showWarningMessage: message('warning'),
  showErrorMessage: message('error'),
  setStatusBarMessage(text: string): Disposable {
    ui.statusBarMessages.push(text);
    return new Disposable();
  },
  async withProgress<R>(
    options: { title?: string; cancellable?: boolean },
    task: (
      progress: { report(value: { message?: string }): void },
      token: CancellationTokenSource['token'],
    ) => Promise<R>,
  ): Promise<R> {
    const record: ProgressRecord = {
      title: options.title,
      messages: [],
      source: new CancellationTokenSource(),
    };
    ui.progress.push(record);
    ui.onProgress(record);
    return task({ report: (value) => record.messages.push(value.message ?? '') }, record.source.token);
  },
  createWebviewPanel(viewType: string, title: string, _column: unknown, options: Record<string, unknown>) {
    const panel = new WebviewPanelStub(viewType, title, options);
    ui.panels.push(panel);
    return panel;
  },
  createOutputChannel: (name: string) => new OutputChannelStub(name),
  createStatusBarItem: (id: string) => new StatusBarItemStub(id),
  createTreeView(id: string, options: { treeDataProvider: unknown }) {
    ui.trees.set(id, options.treeDataProvider);
    return new Disposable();
  },
  async showTextDocument(shown: Uri | { uri: Uri; getText(): string }) {
    // A file is shown with what it holds on disk.
    const document =
      shown instanceof Uri ? { uri: shown, getText: () => readFileSync(shown.fsPath, 'utf8') } : shown;
    ui.documents.push({ uri: document.uri, text: document.getText() });
    return { document };
  },
};

// ---- workspace ----

const configurationChanged = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();
const contentProviders = new Map<string, { provideTextDocumentContent(uri: Uri): string }>();

export const workspace = {
  getConfiguration(section: string) {
    return {
      get<T>(name: string, fallback?: T): T | undefined {
        const key = `${section}.${name}`;
        return ui.settings.has(key) ? (ui.settings.get(key) as T) : fallback;
      },
      async update(name: string, value: unknown, _target?: ConfigurationTarget): Promise<void> {
        const key = `${section}.${name}`;
        ui.settings.set(key, value);
        configurationChanged.fire({
          affectsConfiguration: (s: string) => key === s || key.startsWith(`${s}.`),
        });
      },
    };
  },
  onDidChangeConfiguration: configurationChanged.event,
  registerTextDocumentContentProvider(
    scheme: string,
    provider: { provideTextDocumentContent(uri: Uri): string },
  ) {
    contentProviders.set(scheme, provider);
    return new Disposable(() => contentProviders.delete(scheme));
  },
  async openTextDocument(uri: Uri) {
    const provider = contentProviders.get(uri.scheme);
    if (!provider) throw new Error(`No content provider for ${uri.scheme}`);
    const text = provider.provideTextDocumentContent(uri);
    return { uri, getText: () => text };
  },
};

/** Changes a setting as the user would in the settings editor. */
export async function setSetting(id: string, value: unknown): Promise<void> {
  const dot = id.indexOf('.');
  await workspace.getConfiguration(id.slice(0, dot)).update(id.slice(dot + 1), value);
}

// ---- commands and env ----

const registered = new Map<string, (...args: unknown[]) => unknown>();

export const commands = {
  registerCommand(id: string, handler: (...args: unknown[]) => unknown): Disposable {
    if (registered.has(id)) throw new Error(`Command ${id} is registered twice`);
    registered.set(id, handler);
    return new Disposable(() => registered.delete(id));
  },
  async executeCommand<T>(id: string, ...args: unknown[]): Promise<T> {
    ui.executed.push({ command: id, args });
    const handler = registered.get(id);
    return (handler ? await handler(...args) : undefined) as T;
  },
  registeredIds: (): string[] => [...registered.keys()],
};

export const env = {
  clipboard: {
    async writeText(text: string) {
      ui.clipboard = text;
    },
    async readText() {
      return ui.clipboard;
    },
  },
};

// ---- the extension's context ----

export class MementoStub {
  private readonly values = new Map<string, unknown>();
  get<T>(key: string, fallback?: T): T | undefined {
    return this.values.has(key) ? (structuredClone(this.values.get(key)) as T) : fallback;
  }
  async update(key: string, value: unknown): Promise<void> {
    // Stored as JSON, as VS Code does: what is kept is exactly what a storage file would hold.
    this.values.set(key, JSON.parse(JSON.stringify(value)));
  }
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  setKeysForSync(): void {}
  /** Everything stored, as the text a storage file would hold. */
  dump(): string {
    return JSON.stringify(Object.fromEntries(this.values));
  }
}

export class SecretStorageStub {
  private readonly values = new Map<string, string>();
  private readonly changed = new EventEmitter<{ key: string }>();
  readonly onDidChange = this.changed.event;
  async get(key: string) {
    return this.values.get(key);
  }
  async store(key: string, value: string) {
    this.values.set(key, value);
    this.changed.fire({ key });
  }
  async delete(key: string) {
    this.values.delete(key);
    this.changed.fire({ key });
  }
}

export function createExtensionContext() {
  return {
    subscriptions: [] as { dispose(): unknown }[],
    secrets: new SecretStorageStub(),
    globalState: new MementoStub(),
  };
}

/** Forgets everything between tests: UI records, settings, commands, providers. */
export function resetStub(): void {
  ui = freshUi();
  registered.clear();
  contentProviders.clear();
  window.activeTextEditor = undefined;
}
