// A stand-in for the `vscode` module, for unit tests (vitest aliases `vscode` to this file). It
// implements the part of the API the extension uses, and a scripted user (`ui`) who answers quick
// inputs in order and records what the extension showed: messages, documents, progress, output.
// Its parts are in stub/: plain types, the scripted user, quick inputs, webviews, the context.

import { readFileSync } from 'node:fs';
import {
  CancellationTokenSource,
  type ConfigurationTarget,
  Disposable,
  EventEmitter,
  UIKind,
  Uri,
} from './stub/base';
import { InputBoxStub, type Item, QuickPickStub, showInputBox, showQuickPick } from './stub/quick-input';
import { type Message, type OpenDialogOptions, type ProgressRecord, resetUi, ui } from './stub/ui';
import { WebviewPanelStub } from './stub/webview';

export * from './stub/base';
export * from './stub/context';
export {
  type Message,
  type OpenDialogOptions,
  type ProgressRecord,
  type Reply,
  reply,
  type Seen,
  ui,
} from './stub/ui';
export { ViewColumn, WebviewPanelStub } from './stub/webview';

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
  async showOpenDialog(options: OpenDialogOptions = {}): Promise<Uri[] | undefined> {
    ui.openDialogs.push(options);
    return ui.openDialog(options);
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

// ---- language model tools ----

export class MarkdownString {
  constructor(public value = '') {}
}

export class LanguageModelTextPart {
  constructor(public value: string) {}
}

export class LanguageModelToolResult {
  constructor(public content: unknown[]) {}
}

const tools = new Map<string, unknown>();

export const lm = {
  registerTool(name: string, tool: unknown): Disposable {
    if (tools.has(name)) throw new Error(`Tool ${name} is registered twice`);
    tools.set(name, tool);
    return new Disposable(() => tools.delete(name));
  },
  /** The tool registered under this name, for a test to call as VS Code would. */
  registered: (name: string): unknown => tools.get(name),
  registeredNames: (): string[] => [...tools.keys()],
  /**
   * As vscode.lm.invokeTool outside a chat request: VS Code first asks the tool to prepare the
   * invocation (and shows its confirmation, which the scripted user accepts), then invokes it.
   */
  async invokeTool(
    name: string,
    options: { input: unknown; toolInvocationToken: undefined },
    token = new CancellationTokenSource().token,
  ): Promise<unknown> {
    const tool = tools.get(name) as
      | {
          prepareInvocation?(options: { input: unknown }, token: unknown): Promise<unknown>;
          invoke(options: unknown, token: unknown): Promise<unknown>;
        }
      | undefined;
    if (!tool) throw new Error(`Tool ${name} is not registered`);
    await tool.prepareInvocation?.({ input: options.input }, token);
    return tool.invoke(options, token);
  },
};

export const env = {
  /** A desktop window on this machine unless a test says otherwise. */
  uiKind: UIKind.Desktop,
  remoteName: undefined as string | undefined,
  async openExternal(target: Uri): Promise<boolean> {
    ui.openedExternally.push(target);
    return true;
  },
  clipboard: {
    async writeText(text: string) {
      ui.clipboard = text;
    },
    async readText() {
      return ui.clipboard;
    },
  },
};

export function resetStub(): void {
  resetUi();
  registered.clear();
  tools.clear();
  contentProviders.clear();
  window.activeTextEditor = undefined;
  env.uiKind = UIKind.Desktop;
  env.remoteName = undefined;
}
