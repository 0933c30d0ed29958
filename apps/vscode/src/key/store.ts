// The API key, kept in VS Code's SecretStorage only (the OS keychain on the desktop, code-server's
// own store in a browser). It is never written to settings, history, logs or exported requests.
// Secret storage can fail: on Linux without a keyring, storing throws or the value silently does
// not stay. So a save is read back; when it did not stay, the user may keep the key in memory for
// this session only (never written anywhere).
import * as vscode from 'vscode';

export const SECRET_NAME = 'enrich.apiKey';

export type SaveResult = { readonly saved: true } | { readonly saved: false; readonly reason: string };

export class ApiKeyStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the key is set or cleared, in this window or another one. */
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;
  /** A key the user chose to keep for this session only, after secret storage failed. */
  private sessionKey: string | undefined;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subscription = secrets.onDidChange((event) => {
      if (event.key === SECRET_NAME) this.changed.fire();
    });
  }

  async get(): Promise<string | undefined> {
    if (this.sessionKey !== undefined) return this.sessionKey;
    try {
      const key = await this.secrets.get(SECRET_NAME);
      return key && key.trim() !== '' ? key : undefined;
    } catch {
      // A keyring that cannot be reached holds no key we can use; set() says why when saving.
      return undefined;
    }
  }

  /** True when the key in use lives in memory only and ends with this window. */
  get sessionOnly(): boolean {
    return this.sessionKey !== undefined;
  }

  /** Stores the key and reads it back, since a missing keyring may drop it without an error. */
  async set(key: string): Promise<SaveResult> {
    const clean = key.trim();
    try {
      await this.secrets.store(SECRET_NAME, clean);
      const back = await this.secrets.get(SECRET_NAME);
      if (back !== clean) {
        return { saved: false, reason: 'the key did not stay in secret storage (it could not be read back)' };
      }
    } catch (error) {
      return { saved: false, reason: `secret storage refused it (${errorText(error)})` };
    }
    this.sessionKey = undefined;
    this.changed.fire();
    return { saved: true };
  }

  /** Keeps the key in this window's memory only: nothing is written, it is gone after a reload. */
  useForSession(key: string): void {
    this.sessionKey = key.trim();
    this.changed.fire();
  }

  async clear(): Promise<void> {
    this.sessionKey = undefined;
    try {
      await this.secrets.delete(SECRET_NAME);
    } catch {
      // Nothing could be stored there either.
    }
    this.changed.fire();
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

// Only the first line, without the value: a storage error must not carry the key along.
function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]?.slice(0, 200) || 'unknown error';
}
