// The extension against a service that does not answer as the API description says: the sandbox's
// misbehave modes over real HTTP on 127.0.0.1, with the vscode stand-in playing the user.

import { readFileSync } from 'node:fs';
import { createScrubber, getOperation, KEY_HIDDEN } from '@enrich/core';
import { afterEach, describe, expect, it } from 'vitest';
import { ASK_AGAIN } from '../../src/call/actions';
import { statusText } from '../../src/call/status-text';
import { HISTORY_RAW_MAX_CHARS, History, type HistoryEntry } from '../../src/history';
import { HistoryFile } from '../../src/history-file';
import { COMMAND, operationCommandId } from '../../src/manifest';
import { commands, reply, setSetting, ui } from '../vscode-stub';
import {
  activateWithSandbox,
  closeHarnesses,
  type Harness,
  lastResult,
  storedHistory,
  TEST_KEY,
  tempDir,
} from './harness';

let harness: Harness | undefined;
afterEach(closeHarnesses);

const phoneLookup = operationCommandId(getOperation('phone-lookup'));
const run = (id: string, ...args: unknown[]) =>
  commands.executeCommand<HistoryEntry | undefined>(id, ...args);
const stored = (h: Harness) => storedHistory(h.context);

describe('redirects', () => {
  it('are never followed: the key goes nowhere else, and the message names the status and the host', async () => {
    harness = await activateWithSandbox();
    harness.server.sandbox.configure({ misbehave: ['redirect'] });
    reply({ type: '5550102030' });
    const entry = await run(phoneLookup);
    expect(entry?.outcome).toMatchObject({ kind: 'error', error: { code: 'redirect', status: 307 } });
    expect(entry?.attempts).toBe(1);
    expect(harness.server.decoy.hits()).toBe(0);
    expect(harness.server.sandbox.requests()).toBe(1);
    const decoyHost = harness.server.decoy.url.replace('http://', '');
    expect(ui.messages.at(-1)?.text).toContain(`307 (a redirect) to ${decoyHost}`);
    expect(lastResult()).toMatchObject({ status: 307, result: 'error', transaction: 'not spent' });
  });
});

describe('a key that can only be a copy mistake', () => {
  it('is refused before any request, by a message that does not show it', async () => {
    harness = await activateWithSandbox({ setKey: false });
    const pasted = `${TEST_KEY.slice(0, 9)}\n${TEST_KEY.slice(9)}`;
    await harness.context.secrets.store('enrich.apiKey', pasted);
    reply({ type: '5550102030' });
    const entry = await run(phoneLookup);
    expect(entry).toBeUndefined();
    expect(harness.server.sandbox.requests()).toBe(0);
    const shown = ui.messages.at(-1);
    expect(shown).toMatchObject({ severity: 'error', actions: ['Set API Key'] });
    expect(shown?.text).toContain('line break');
    for (const part of [TEST_KEY.slice(0, 9), TEST_KEY.slice(9)]) {
      expect(ui.messages.map((m) => m.text).join('\n')).not.toContain(part);
      expect(ui.output.join('\n')).not.toContain(part);
    }
  });
});

describe('Set API Key runs the free key check', () => {
  it('shows "key accepted" when the service refuses the empty request with 400; nothing is spent', async () => {
    harness = await activateWithSandbox({ setKey: false });
    reply({ type: TEST_KEY });
    await run(COMMAND.setApiKey);
    expect(harness.server.sandbox.requests()).toBe(1);
    expect(harness.server.sandbox.transactions()).toBe(0);
    const shown = ui.messages.at(-1);
    expect(shown?.severity).toBe('info');
    expect(shown?.text).toBe(
      `API key saved in VS Code's secret storage. Free key check (no transaction spent): ${harness.server.url}: key accepted.`,
    );
  });

  it('says which base refuses the key, and which cannot be reached, one verdict per base', async () => {
    harness = await activateWithSandbox({ setKey: false, keys: ['another-key'] });
    await setSetting('enrich.baseUrlV3', 'http://127.0.0.1:9');
    reply({ type: TEST_KEY });
    await run(COMMAND.setApiKey);
    const shown = ui.messages.at(-1);
    expect(shown?.severity).toBe('warning');
    expect(shown?.text).toContain(`${harness.server.url}: the service does not accept this key (HTTP 401).`);
    expect(shown?.text).toMatch(/http:\/\/127\.0\.0\.1:9: Could not reach the service at 127\.0\.0\.1:9/);
    expect(shown?.text).not.toContain(TEST_KEY);
    expect(harness.server.sandbox.transactions()).toBe(0);
    // The key is saved whatever the verdict: the user may fix the base URL instead.
    expect(await harness.context.secrets.get('enrich.apiKey')).toBe(TEST_KEY);
  });

  it('reports a redirect as unexpected, and follows none', async () => {
    harness = await activateWithSandbox({ setKey: false });
    harness.server.sandbox.configure({ misbehave: ['redirect'] });
    reply({ type: TEST_KEY });
    await run(COMMAND.setApiKey);
    expect(ui.messages.at(-1)?.text).toMatch(/Unexpected answer: The service answered 307 \(a redirect\)/);
    expect(harness.server.decoy.hits()).toBe(0);
  });
});

describe('answers that differ from the API description', () => {
  it('keep unknown fields, flag mismatches, and keep the raw body in the History', async () => {
    harness = await activateWithSandbox();
    harness.server.sandbox.configure({ misbehave: ['other-case', 'extra-fields'] });
    reply({ type: '5550102030' });
    const entry = await run(phoneLookup);
    if (entry?.outcome.kind !== 'record') throw new Error(`expected a record, got ${entry?.outcome.kind}`);
    const shown = lastResult();
    expect(shown.result).toMatch(/^record \(\d+ fields not as documented\)$/);
    expect(shown.notInTheDescription).toMatchObject({
      DID: '5550102030',
      'Name.Nick': 'JJ',
      'Meta.Source': 'sandbox',
    });
    expect(shown.notAsDocumented).toEqual(
      expect.arrayContaining([
        'Name: sent as name',
        'Name.FName: sent as fName',
        'DID: not in the API description; kept',
      ]),
    );
    expect((shown.record as { Name: { FName: string } }).Name.FName).not.toBe('');
    expect(statusText(entry)).toMatch(/^200 \(\d+ not as documented\)$/);
    expect(ui.messages.at(-1)).toMatchObject({ severity: 'warning' });
    expect(ui.messages.at(-1)?.text).toMatch(/differs from the API description in \d+ fields/);
    const kept = stored(harness)[0];
    if (kept?.outcome.kind !== 'record') throw new Error('not kept as a record');
    expect(JSON.parse(kept.outcome.raw)).toMatchObject({ DID: '5550102030', name: { Nick: 'JJ' } });
  });

  it('an HTML 200 is shown as "paid, unreadable", never resent, and asking again is an explicit, priced action', async () => {
    harness = await activateWithSandbox();
    harness.server.sandbox.configure({ misbehave: ['html-200'] });
    let asked = 0;
    ui.answer = (m) => (m.actions.includes(ASK_AGAIN) && asked++ === 0 ? ASK_AGAIN : undefined);
    reply({ type: '5550102030' });
    const entry = await run(phoneLookup);
    expect(entry?.outcome).toMatchObject({ kind: 'unreadable', reason: 'the body is not JSON' });
    expect(entry?.attempts).toBe(1);
    const warnings = ui.messages.filter((m) => m.actions.includes(ASK_AGAIN));
    expect(warnings[0]?.text).toMatch(
      /^Phone Lookup: paid, unreadable\. The service answered 200 \(a transaction was spent\)/,
    );
    expect(warnings[0]?.actions).toEqual(['Ask again (spends 1 transaction)']);
    // The user chose to ask again once: two requests, two transactions, two History entries.
    expect(harness.server.sandbox.requests()).toBe(2);
    expect(harness.server.sandbox.transactions()).toBe(2);
    expect(stored(harness)).toHaveLength(2);
    expect(lastResult()).toMatchObject({ result: 'paid, unreadable', status: 200, transaction: 'spent' });
    expect(String(lastResult().received)).toContain('<html>');
  });

  it('a cut body is paid, unreadable and not resent when nobody asks', async () => {
    harness = await activateWithSandbox();
    harness.server.sandbox.configure({ misbehave: ['cut-body'] });
    reply({ type: '5550102030' });
    const entry = await run(phoneLookup);
    expect(entry?.outcome).toMatchObject({
      kind: 'unreadable',
      reason: 'the body broke off before it was complete',
    });
    expect(entry?.paid).toBe(true);
    expect(harness.server.sandbox.requests()).toBe(1);
    expect(harness.server.sandbox.transactions()).toBe(1);
  });

  it('a huge body is kept in the History only up to its cap', async () => {
    harness = await activateWithSandbox();
    harness.server.sandbox.configure({ misbehave: ['huge-body'] });
    reply({ type: '5550102030' });
    await run(phoneLookup);
    const kept = stored(harness)[0];
    if (kept?.outcome.kind !== 'unreadable') throw new Error('not kept as unreadable');
    expect(kept.outcome.raw.length).toBeLessThanOrEqual(HISTORY_RAW_MAX_CHARS);
    expect(kept.outcome.raw.startsWith('{"Name"')).toBe(true);
    expect(harness.server.sandbox.requests()).toBe(1);
  });

  it('offers an earlier unreadable answer before buying it again', async () => {
    harness = await activateWithSandbox();
    harness.server.sandbox.configure({ misbehave: ['html-200'] });
    reply({ type: '5550102030' });
    await run(phoneLookup);
    ui.answer = (m) => (m.modal ? 'Show that answer (no transaction)' : undefined);
    reply({ type: '5550102030' });
    await run(phoneLookup);
    expect(ui.messages.some((m) => m.modal && m.text.includes('paid for but could not be read'))).toBe(true);
    expect(harness.server.sandbox.requests()).toBe(1);
  });
});

describe('a Retry-After longer than core waits for', () => {
  it('is not waited for: one request, and the message says until when', async () => {
    harness = await activateWithSandbox();
    harness.server.sandbox.configure({ misbehave: ['retry-after-huge'] });
    reply({ type: '5550102030' });
    const started = Date.now();
    const entry = await run(phoneLookup);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(harness.server.sandbox.requests()).toBe(1);
    expect(entry?.resumeAt).toBeGreaterThanOrEqual(started + 99_999_000);
    const resumeAt = entry?.resumeAt ?? 0;
    expect(ui.messages.at(-1)?.text).toContain(
      `The service asks to wait until ${new Date(resumeAt).toLocaleString()}; that was not waited for.`,
    );
  });
});

describe('the scrubber', () => {
  it('removes the key from whatever an entry holds before the History stores it', async () => {
    const file = new HistoryFile(tempDir('enrich-vscode-history-'));
    const history = new History(file, () => 10, createScrubber([TEST_KEY]));
    await history.add({
      id: 'x',
      operationId: 'phone-lookup',
      input: { Phone: '5550102030' },
      at: 0,
      durationMs: 1,
      attempts: 1,
      outcome: { kind: 'error', error: { code: 'network', message: `socket said ${TEST_KEY}` } },
      paid: false,
      request: {
        method: 'POST',
        url: 'https://x.test/v3/lookup/phone',
        headers: { 'x-api-key': TEST_KEY },
        body: '{}',
      },
    });
    const text = readFileSync(file.path, 'utf8');
    expect(text).not.toContain(TEST_KEY);
    expect(text).toContain(KEY_HIDDEN);
  });
});
