// The extension's context in the vscode stand-in: globalState, secret storage, and a global storage
// folder of its own (a fresh temporary path: the spend ledger's and the History's).
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventEmitter, Uri } from './base';

// ---- the extension's context ----

export class MementoStub {
  private readonly values = new Map<string, unknown>();
  get<T>(key: string, fallback?: T): T | undefined {
    return this.values.has(key) ? (structuredClone(this.values.get(key)) as T) : fallback;
  }
  async update(key: string, value: unknown): Promise<void> {
    // undefined removes the key, as in VS Code.
    if (value === undefined) {
      this.values.delete(key);
      return;
    }
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
    // Not created: VS Code does not create it either; whoever writes there makes the folder.
    globalStorageUri: Uri.file(join(tmpdir(), `enrich-global-storage-${randomUUID()}`)),
  };
}

/** Forgets everything between tests: UI records, settings, commands, providers. */
