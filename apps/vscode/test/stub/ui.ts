// The scripted user of the vscode stand-in, and what the extension showed them.
import type { CancellationTokenSource, Uri } from './base';
import type { WebviewPanelStub } from './webview';

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

/** What the extension asked the file picker for (showOpenDialog's options). */
export interface OpenDialogOptions {
  readonly canSelectMany?: boolean;
  readonly filters?: Record<string, string[]>;
  readonly openLabel?: string;
  readonly title?: string;
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
    openDialogs: [] as OpenDialogOptions[],
    /** The file picker's answer; by default none (the user closed it). */
    openDialog: (_options: OpenDialogOptions): Uri[] | undefined => undefined,
    /** What env.openExternal was given (a file opened with the system's app). */
    openedExternally: [] as Uri[],
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

/** Forgets what the scripted user saw and did (vscode-stub's resetStub). */
export function resetUi(): void {
  ui = freshUi();
}

/** Queues the user's next answers to quick inputs, in order. */
export function reply(...replies: Reply[]): void {
  ui.replies.push(...replies);
}

export function nextReply(what: string): Reply {
  const next = ui.replies.shift();
  if (!next) throw new Error(`The test gave no reply for ${what}`);
  return next;
}
