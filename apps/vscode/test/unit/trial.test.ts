// "Try Without a Key": the sandbox runs inside the extension (here: inside the test process, as the
// source imports it), this session's calls go to it with the demo key, and nothing of the user's
// changes: settings, stored key. Returning to the real service, or deactivating, stops it.

import { afterEach, describe, expect, it } from 'vitest';
import type * as vscode from 'vscode';
import { activate, deactivate } from '../../src/extension';
import type { HistoryEntry } from '../../src/history';
import { COMMAND, operationCommandIdOf, TRYING_CONTEXT } from '../../src/manifest';
import { commands, createExtensionContext, resetStub, ui } from '../vscode-stub';
import { storedHistoryText } from './harness';

let context: ReturnType<typeof createExtensionContext> | undefined;
afterEach(async () => {
  await deactivate();
  for (const d of context?.subscriptions ?? []) d.dispose();
  context = undefined;
});

async function activateFresh() {
  resetStub();
  context = createExtensionContext();
  await activate(context as unknown as vscode.ExtensionContext);
  return context;
}

const status = () => ui.statusItems.at(-1);

async function reachable(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/v3/lookup/phone`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}

describe('Try Without a Key', () => {
  it('answers Phone Lookup from its own sandbox, leaving settings and the stored key alone', async () => {
    const ctx = await activateFresh();
    expect(status()?.text).toContain('$(warning)');
    const url = await commands.executeCommand<string>(COMMAND.tryWithoutKey);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(status()?.text).toBe('$(beaker) Enrichment: trying without a key');
    expect(status()?.command).toBe(COMMAND.useRealService);
    expect(ui.executed).toContainEqual({ command: 'setContext', args: [TRYING_CONTEXT, true] });
    expect(ui.messages.at(-1)?.text).toMatch(/nothing is spent.*settings and API key are unchanged/);

    const entry = await commands.executeCommand<HistoryEntry>(operationCommandIdOf('phone-lookup'), {
      Phone: '5550102030',
    });
    expect(entry.outcome.kind).toBe('record');
    expect(entry.request.url).toBe(`${url}/v3/lookup/phone`);
    // Nothing written: no base URL in the settings, no key in secret storage.
    expect([...ui.settings.keys()]).toEqual([]);
    expect(await ctx.secrets.get('enrich.apiKey')).toBeUndefined();
    // The demo key is public, but it is still not the user's key: the History holds it redacted.
    expect(storedHistoryText(ctx)).toContain('5550102030');
    expect(storedHistoryText(ctx)).not.toContain('sandbox-demo-key');
    expect(JSON.stringify(ctx.globalState.dump())).not.toContain('sandbox-demo-key');

    await commands.executeCommand(COMMAND.useRealService);
    expect(status()?.text).toBe('$(warning) Enrichment');
    expect(ui.messages.at(-1)?.text).toContain('Calls go to the real service again (https://');
    expect(await reachable(url)).toBe(false);
  });

  it('leaves a key the user set in place, and uses it again after returning', async () => {
    const ctx = await activateFresh();
    await ctx.secrets.store('enrich.apiKey', 'users-own-key-93k');
    await commands.executeCommand(COMMAND.useRealService); // refreshes; not trying: says nothing
    expect(ui.messages).toEqual([]);
    expect(status()?.text).toBe('$(key) Enrichment');
    await commands.executeCommand(COMMAND.tryWithoutKey);
    expect(await ctx.secrets.get('enrich.apiKey')).toBe('users-own-key-93k');
    await commands.executeCommand(COMMAND.useRealService);
    expect(status()?.text).toBe('$(key) Enrichment');
  });

  it('stops the sandbox when the extension deactivates', async () => {
    await activateFresh();
    const url = await commands.executeCommand<string>(COMMAND.tryWithoutKey);
    expect(await reachable(url)).toBe(true);
    await deactivate();
    expect(await reachable(url)).toBe(false);
  });

  it('starts one sandbox however often it is asked', async () => {
    await activateFresh();
    const first = await commands.executeCommand<string>(COMMAND.tryWithoutKey);
    const second = await commands.executeCommand<string>(COMMAND.tryWithoutKey);
    expect(second).toBe(first);
  });
});
