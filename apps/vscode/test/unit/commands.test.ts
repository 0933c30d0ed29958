// The command table against a real sandbox over HTTP on 127.0.0.1, with the vscode stand-in
// playing the user.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_KEY_ENV, checkApiKey, getOperation, OPERATIONS, readLedger, toCurl } from '@enrich/core';
import { DEMO_KEY, RESERVED } from '@enrich/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { createCommands } from '../../src/commands';
import type { HistoryEntry } from '../../src/history';
import { COMMAND, contributes, operationCommandId } from '../../src/manifest';
import { LEDGER_FILE } from '../../src/spend/ledger';
import { commands, reply, setSetting, ui } from '../vscode-stub';
import {
  activateWithSandbox,
  cleanExample,
  closeHarnesses,
  expectedRecord,
  type Harness,
  lastResult,
  repliesFor,
  storedHistory,
  storedHistoryText,
  TEST_KEY,
} from './harness';

let harness: Harness | undefined;
afterEach(closeHarnesses);

const run = (id: string, ...args: unknown[]) =>
  commands.executeCommand<HistoryEntry | undefined>(id, ...args);
const reserved = (outcome: string) => {
  const found = RESERVED.find((r) => r.outcome === outcome);
  if (!found) throw new Error(outcome);
  return found;
};

describe('the command table', () => {
  it('registers exactly the commands the manifest contributes', async () => {
    harness = await activateWithSandbox();
    const contributed = contributes().commands.map((c) => c.command);
    expect(commands.registeredIds().sort()).toEqual([...contributed].sort());
    expect(Object.keys(createCommands()).sort()).toEqual([...contributed].sort());
  });
});

describe('all nine operations, end to end against the sandbox over HTTP', () => {
  it.each(OPERATIONS.map((op) => [op.id, op] as const))(
    '%s: typed through its quick input, answered by the sandbox',
    async (_id, op) => {
      harness = await activateWithSandbox();
      const input = cleanExample(op);
      reply(...repliesFor(op, op.example));
      const entry = await run(operationCommandId(op));
      expect(entry?.outcome.kind).toBe('record');
      const shown = lastResult();
      expect(shown).toMatchObject({
        operation: op.title,
        input,
        status: 200,
        result: 'record',
        transaction: 'spent',
      });
      expect(shown.record).toEqual(expectedRecord(op, input));
      expect(harness.server.sandbox.transactions(TEST_KEY)).toBe(1);
      // Titled with the operation and the time, never the input (the window takes the title).
      const time = new Date(entry?.at ?? 0).toTimeString().slice(0, 8);
      expect(ui.documents.at(-1)?.uri.path).toBe(`/${op.title} ${time}.json`);
    },
  );
});

describe('a call', () => {
  it('keeps the key out of history, output, result and curl, which reads $ENRICH_API_KEY', async () => {
    harness = await activateWithSandbox();
    reply({ type: '5550102030' });
    const entry = await run(operationCommandId(getOperation('phone-lookup')));
    expect(entry).toBeDefined();
    const stored = storedHistoryText(harness.context);
    expect(stored).toContain('5550102030');
    expect(stored).not.toContain(TEST_KEY);
    expect(harness.context.globalState.dump()).not.toContain(TEST_KEY);
    expect(ui.output.join('\n')).toContain('Phone Lookup POST');
    expect(ui.output.join('\n')).not.toContain(TEST_KEY);
    expect(ui.documents.map((d) => d.text).join('\n')).not.toContain(TEST_KEY);

    await run(COMMAND.copyLastRequestAsCurl);
    expect(ui.clipboard).toContain(`$${API_KEY_ENV}`);
    expect(ui.clipboard).not.toContain(TEST_KEY);
    expect(ui.clipboard).toBe(toCurl(storedHistory(harness.context)[0]?.request ?? (undefined as never)));
  });

  it('refuses invalid input given to the command without sending anything', async () => {
    harness = await activateWithSandbox();
    const entry = await run(operationCommandId(getOperation('phone-lookup')), { Phone: '12345' });
    expect(entry).toBeUndefined();
    expect(harness.server.sandbox.requests()).toBe(0);
    expect(ui.messages.at(-1)).toMatchObject({ severity: 'error', text: 'Phone must be 10 digits; got 5' });
  });

  it('offers "Set API Key" on a 401, and it opens the password box', async () => {
    harness = await activateWithSandbox({ keys: ['another-key'] });
    ui.answer = (m) => (m.actions.includes('Set API Key') ? 'Set API Key' : undefined);
    reply({ type: '5550102030' }, { type: 'fresh-key-1' });
    const entry = await run(operationCommandId(getOperation('phone-lookup')));
    expect(entry?.outcome).toMatchObject({ kind: 'error', error: { code: 'unauthorized', status: 401 } });
    expect(ui.messages[0]).toMatchObject({ severity: 'error', actions: ['Set API Key'] });
    expect(ui.seen.at(-1)).toMatchObject({ kind: 'showInputBox', password: true });
    expect(await harness.context.secrets.get('enrich.apiKey')).toBe('fresh-key-1');
    expect(lastResult()).toMatchObject({ status: 401, result: 'error', transaction: 'not spent' });
  });

  it('says "no match" in words for a 204, which spends a transaction', async () => {
    harness = await activateWithSandbox();
    reply({ type: reserved('no-match').phone });
    await run(operationCommandId(getOperation('phone-lookup')));
    expect(ui.messages.at(-1)?.text).toMatch(/no record matches .*\(204\)\. A transaction was spent\./);
    expect(lastResult()).toMatchObject({ status: 204, result: 'no match', transaction: 'spent' });
  });

  it('offers "Retry" on a 500 after core has retried, and retries when asked', async () => {
    harness = await activateWithSandbox();
    let offered = 0;
    ui.answer = (m) => (m.actions.includes('Retry') && offered++ === 0 ? 'Retry' : undefined);
    reply({ type: reserved('fault').email });
    await run(operationCommandId(getOperation('email-verify')));
    const errors = ui.messages.filter((m) => m.severity === 'error');
    expect(errors).toHaveLength(2);
    expect(errors[0]?.actions).toEqual(['Retry']);
    const requests = harness.server.sandbox.requests();
    // core's default policy makes several attempts per call; the Retry made a second call.
    expect(requests % 2).toBe(0);
    expect(requests).toBeGreaterThan(2);
    expect(ui.progress.some((p) => p.messages.some((m) => m.startsWith('retrying in')))).toBe(true);
  }, 60_000);

  it('asks for a key first when none is set, sending nothing', async () => {
    harness = await activateWithSandbox({ setKey: false });
    reply({ type: '5550102030' });
    const entry = await run(operationCommandId(getOperation('phone-lookup')));
    expect(entry).toBeUndefined();
    expect(ui.messages.at(-1)).toMatchObject({ severity: 'warning', actions: ['Set API Key'] });
    expect(harness.server.sandbox.requests()).toBe(0);
    expect(ui.statusItems[0]?.text).toContain('$(warning)');
  });

  // The sandbox bills a request when it takes it (the reserved slow phone answers 2 s later), as a
  // service may: a call cancelled after it was sent may have been paid, and is recorded so.
  it('can be cancelled while it runs: recorded as may have been paid in the History and the ledger', async () => {
    harness = await activateWithSandbox();
    ui.onProgress = (p) => setTimeout(() => p.source.cancel(), 200);
    reply({ type: reserved('slow').phone });
    const started = Date.now();
    const entry = await run(operationCommandId(getOperation('phone-lookup')));
    expect(entry).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1500);
    expect(harness.server.sandbox.transactions(TEST_KEY)).toBe(1);
    expect(ui.messages.at(-1)).toMatchObject({ severity: 'warning' });
    expect(ui.messages.at(-1)?.text).toMatch(
      /^Phone Lookup: cancelled after the request was sent, before its answer: the service may have billed it\. It is in the History and the spend ledger as may have been paid; asking again may pay again\.$/,
    );
    const stored = storedHistory(harness.context);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      paid: false,
      outcome: { kind: 'error', error: { code: 'unanswered' } },
    });
    const ledger = readLedger(
      readFileSync(join(harness.context.globalStorageUri.fsPath, LEDGER_FILE), 'utf8'),
    ).entries;
    expect(ledger).toEqual([expect.objectContaining({ run: stored[0]?.id, count: 1 })]);
  });

  it('reports a base URL that is not allowed, sending nothing', async () => {
    harness = await activateWithSandbox();
    await setSetting('enrich.baseUrlV3', 'http://example.com');
    reply({ type: '5550102030' });
    await run(operationCommandId(getOperation('phone-lookup')));
    expect(ui.messages.at(-1)).toMatchObject({ severity: 'error', actions: ['Open Settings'] });
    expect(ui.messages.at(-1)?.text).toContain('https://');
    expect(harness.server.sandbox.requests()).toBe(0);
  });
});

describe('key and sandbox commands', () => {
  it('sets the key through a password box and shows it in the status bar', async () => {
    harness = await activateWithSandbox({ setKey: false });
    reply({ type: ' ' }, { type: 'k e y' }, { type: TEST_KEY });
    await run(COMMAND.setApiKey);
    expect(ui.seen.map((s) => [s.password, s.validationMessage])).toEqual([
      [true, 'Enter the key'],
      [true, checkApiKey('k e y')],
      [true, undefined],
    ]);
    expect(ui.seen[1]?.validationMessage).toMatch(/has a space in it \(character 2 of 5\)/);
    expect(await harness.context.secrets.get('enrich.apiKey')).toBe(TEST_KEY);
    expect(ui.statusItems[0]?.text).toContain('$(key)');
    await run(COMMAND.clearApiKey);
    expect(await harness.context.secrets.get('enrich.apiKey')).toBeUndefined();
    expect(ui.statusItems[0]?.text).toContain('$(warning)');
  });

  it('follows a key set in another window (SecretStorage onDidChange)', async () => {
    harness = await activateWithSandbox({ setKey: false });
    await harness.context.secrets.store('enrich.apiKey', 'from-another-window');
    await new Promise((r) => setTimeout(r, 10));
    expect(ui.statusItems[0]?.text).toContain('$(key)');
  });

  it('Use Sandbox points both base URLs at it and offers the demo key', async () => {
    harness = await activateWithSandbox({ setKey: false });
    await setSetting('enrich.baseUrl', 'https://api.example.com');
    await setSetting('enrich.baseUrlV3', 'https://api.example.com');
    expect(ui.statusItems[0]?.text).not.toContain('sandbox');
    ui.answer = (m) => (m.actions.includes('Use Demo Key') ? 'Use Demo Key' : undefined);
    reply({ type: 'https://api.example.com' }, { type: 'http://127.0.0.1:8787/' });
    await run(COMMAND.useSandbox);
    expect(ui.seen[0]?.validationMessage).toBe('A local sandbox runs on localhost or 127.0.0.1');
    expect(ui.settings.get('enrich.baseUrl')).toBe('http://127.0.0.1:8787');
    expect(ui.settings.get('enrich.baseUrlV3')).toBe('http://127.0.0.1:8787');
    expect(await harness.context.secrets.get('enrich.apiKey')).toBe(DEMO_KEY);
    expect(ui.statusItems[0]?.text).toBe('$(key) Enrichment (sandbox)');
  });
});

describe('history', () => {
  async function callTimes(n: number) {
    for (let i = 0; i < n; i++) {
      reply({ type: `555010203${i}` });
      await run(operationCommandId(getOperation('phone-lookup')));
    }
  }

  it('keeps calls newest first, capped by the setting, across a restart', async () => {
    harness = await activateWithSandbox();
    await setSetting('enrich.historySize', 2);
    await callTimes(3);
    const kept = storedHistory(harness.context);
    expect(kept.map((e) => e.input.Phone)).toEqual(['5550102032', '5550102031']);
    await setSetting('enrich.historySize', 1);
    await new Promise((r) => setTimeout(r, 10));
    expect(storedHistory(harness.context)).toHaveLength(1);
  });

  it('re-runs, copies, deletes and clears from the context menu', async () => {
    harness = await activateWithSandbox();
    await callTimes(2);
    const [newest, oldest] = storedHistory(harness.context);
    if (!newest || !oldest) throw new Error('two entries expected');

    const again = await run(COMMAND.rerun, oldest);
    expect(again?.input).toEqual(oldest.input);
    expect(harness.server.sandbox.requests()).toBe(3);

    await run(COMMAND.copyAsCurl, newest);
    expect(ui.clipboard).toContain(newest.input.Phone);

    await run(COMMAND.openResult, oldest.id);
    expect(lastResult().input).toEqual(oldest.input);

    await run(COMMAND.deleteEntry, newest);
    const left = storedHistory(harness.context);
    expect(left.map((e) => e.id)).not.toContain(newest.id);
    expect(left).toHaveLength(2);

    ui.answer = (m) => (m.modal ? 'Clear History' : undefined);
    await run(COMMAND.clearHistory);
    expect(storedHistory(harness.context)).toEqual([]);
  });

  it('Show History focuses the History view', async () => {
    harness = await activateWithSandbox();
    await run(COMMAND.showHistory);
    expect(ui.executed.map((e) => e.command)).toContain('enrich.history.focus');
  });
});
