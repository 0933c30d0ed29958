// The API key, kept in VS Code's SecretStorage only (the OS keychain on the desktop, code-server's
// own store in a browser). It is never written to settings, history, logs or exported requests.
import * as vscode from 'vscode';

export const SECRET_NAME = 'enrich.apiKey';

export class ApiKeyStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the key is set or cleared, in this window or another one. */
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subscription = secrets.onDidChange((event) => {
      if (event.key === SECRET_NAME) this.changed.fire();
    });
  }

  async get(): Promise<string | undefined> {
    const key = await this.secrets.get(SECRET_NAME);
    return key && key.trim() !== '' ? key : undefined;
  }

  async set(key: string): Promise<void> {
    await this.secrets.store(SECRET_NAME, key.trim());
  }

  async clear(): Promise<void> {
    await this.secrets.delete(SECRET_NAME);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
