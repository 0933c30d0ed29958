// The vscode stand-in's webview panels: the page's HTML, what the extension posted to it, and a way
// to press its buttons (what the page's script would send).
import { EventEmitter } from './base';

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
