// Secret storage that fails: it throws (no keyring reachable) or takes the key without keeping it.
// The save is read back, the user is told, and may keep the key for this session only (memory).

import { afterEach, describe, expect, it } from 'vitest';
import type * as vscode from 'vscode';
import { activate } from '../../src/extension';
import { ApiKeyStore } from '../../src/key/store';
import { COMMAND } from '../../src/manifest';
import {
  commands,
  createExtensionContext,
  reply,
  resetStub,
  SecretStorageStub,
  setSetting,
  ui,
} from '../vscode-stub';

const KEY = 'key-store-test-4k9z';

class ThrowingStorage extends SecretStorageStub {
  override async store(): Promise<void> {
    throw new Error('Cannot create an item in a locked collection');
  }
}

// What a missing keyring can look like: store() resolves, nothing stays.
class ForgetfulStorage extends SecretStorageStub {
  override async store(): Promise<void> {}
}

let context: ReturnType<typeof createExtensionContext> | undefined;
afterEach(() => {
  for (const d of context?.subscriptions ?? []) d.dispose();
  context = undefined;
});

async function activateWith(secrets: SecretStorageStub) {
  resetStub();
  // The free key check runs after a key is set: a loopback port nobody listens on, never a real host.
  await setSetting('enrich.baseUrl', 'http://127.0.0.1:9');
  await setSetting('enrich.baseUrlV3', 'http://127.0.0.1:9');
  context = { ...createExtensionContext(), secrets };
  await activate(context as unknown as vscode.ExtensionContext);
}

describe('ApiKeyStore.set', () => {
  it('reports a working store as saved', async () => {
    const store = new ApiKeyStore(new SecretStorageStub() as unknown as vscode.SecretStorage);
    expect(await store.set(` ${KEY} `)).toEqual({ saved: true });
    expect(await store.get()).toBe(KEY);
    expect(store.sessionOnly).toBe(false);
  });

  it.each([
    ['throws', new ThrowingStorage(), /refused it \(Cannot create an item in a locked collection\)/],
    ['keeps nothing', new ForgetfulStorage(), /could not be read back/],
  ])('detects a store that %s', async (_name, secrets, reason) => {
    const store = new ApiKeyStore(secrets as unknown as vscode.SecretStorage);
    const result = await store.set(KEY);
    expect(result.saved).toBe(false);
    if (!result.saved) expect(result.reason).toMatch(reason);
    expect(await store.get()).toBeUndefined();
  });
});

describe('Set API Key where secret storage fails', () => {
  it('says so and, when asked, keeps the key for this session only', async () => {
    const secrets = new ForgetfulStorage();
    await activateWith(secrets);
    reply({ type: KEY });
    ui.answer = (m) => (m.modal ? 'Use for This Session Only' : undefined);
    await commands.executeCommand(COMMAND.setApiKey);
    const warning = ui.messages.find((m) => m.modal);
    expect(warning?.text).toContain('VS Code could not keep the API key');
    expect(warning?.detail).toMatch(/keyring.*memory, never written/);
    expect(ui.statusItems.at(-1)?.text).toContain('(key for this session)');
    expect(await secrets.get('enrich.apiKey')).toBeUndefined();
    // The free key check runs with the session key (no base answers here: only its opening is checked).
    expect(ui.messages.some((m) => m.text.startsWith('API key kept in memory for this session only.'))).toBe(
      true,
    );
    for (const m of ui.messages) expect(m.text).not.toContain(KEY);
  });

  it('keeps no key when the user declines', async () => {
    await activateWith(new ThrowingStorage());
    reply({ type: KEY });
    await commands.executeCommand(COMMAND.setApiKey);
    expect(ui.messages.find((m) => m.modal)?.text).toContain('secret storage refused it');
    expect(ui.statusItems.at(-1)?.text).toBe('$(warning) Enrichment (sandbox)');
  });
});
