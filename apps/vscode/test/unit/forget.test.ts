// "Enrichment: Forget a Person" (issue 38) against a real sandbox over HTTP on 127.0.0.1, with the
// vscode stand-in playing the user: what is held is counted and confirmed first; then the History's
// file, every registered answer cache and the cache folder's lose every answer holding the person (a
// byte scan of each in every spelling finds nothing), the suppression list gains hashes only, and from
// then on the palette, the chat tools and a file's plan refuse the person before the History or the
// service. A person forgotten with `enrich forget` (the same data folder) leaves the History at the
// next activation.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AnswerStore, forgetEverywhere, keepCache, readForgetLog, suppressionPath } from '@enrich/bulk';
import { getOperation, identitiesOf, requestKey } from '@enrich/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type * as vscode from 'vscode';
import { byteScan } from '../../../../packages/bulk/test/byte-scan';
import { activate } from '../../src/extension';
import { csvRun, planRun } from '../../src/file-run/files';
import { COMMAND, chatToolName, operationCommandId } from '../../src/manifest';
import { commands, lm, ui } from '../vscode-stub';
import {
  activateWithSandbox,
  closeHarnesses,
  type Harness,
  storedHistory,
  storedHistoryText,
  tempDir,
} from './harness';

const PERSON = { phone: '5550102030', email: 'jane.doe@example.com' };
const lookup = getOperation('phone-lookup');
let harness: Harness;
let dataDir: string;
let cacheDir: string;
// The test file's own folders (test-folders.ts, the setup file), put back after each test.
const fileFolders = {
  ENRICH_DATA_DIR: process.env.ENRICH_DATA_DIR,
  ENRICH_CACHE_DIR: process.env.ENRICH_CACHE_DIR,
};

beforeEach(() => {
  dataDir = tempDir('enrich-vscode-data-');
  cacheDir = tempDir('enrich-vscode-cache-');
  process.env.ENRICH_DATA_DIR = dataDir;
  process.env.ENRICH_CACHE_DIR = cacheDir;
});
afterEach(async () => {
  await closeHarnesses();
  for (const [name, value] of Object.entries(fileFolders)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const run = (id: string, ...args: unknown[]) => commands.executeCommand<unknown>(id, ...args);
const history = () => storedHistory(harness.context);
const requests = () => harness.server.sandbox.requests();

/** An answer cache a file run wrote (registered as runs register theirs), holding the person and another. */
async function fileRunCache(): Promise<string> {
  const work = tempDir('enrich-vscode-work-');
  const path = join(work, '.enrich-cache.jsonl');
  await keepCache(dataDir, path);
  const store = AnswerStore.open({ path, namespace: 'sandbox', maxAgeMs: Number.POSITIVE_INFINITY });
  const entry = history().find((e) => e.input.Phone === PERSON.phone);
  if (!entry) throw new Error('no History entry for the person');
  await store.put(requestKey(lookup, { Phone: PERSON.phone }), entry.outcome);
  await store.put(requestKey(lookup, { Phone: '5550109999' }), { kind: 'no-match', status: 204 });
  store.close();
  return path;
}

describe('Forget a Person', () => {
  it('counts what is held, asks, then removes it from the History and every cache, and refuses the person', async () => {
    harness = await activateWithSandbox();
    await run(operationCommandId(lookup), { Phone: '(555) 010-2030' });
    await run(operationCommandId(lookup), { Phone: '5550109999' });
    await run(operationCommandId(getOperation('email-verify')), { Email: 'Jane.Doe@Example.com' });
    const cache = await fileRunCache();
    const mcp = join(cacheDir, 'answers.jsonl');
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(mcp, readFileSync(cache));
    // The History's file (the extension's global storage folder) holds the person: the scan covers it.
    const storage = harness.context.globalStorageUri.fsPath;
    expect(byteScan([cache, mcp], PERSON).length).toBeGreaterThan(0);
    expect(byteScan([storage], PERSON).length).toBeGreaterThan(0);
    expect(history()).toHaveLength(3);

    // A chat call confirmed (as paid) just before the forget, and run just after it.
    const tool = lm.registered(chatToolName(lookup)) as {
      prepareInvocation(options: unknown): Promise<{ invocationMessage: string }>;
      invoke(options: unknown, token: unknown): Promise<{ content: { value: string }[] }>;
    };
    const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) };
    const confirmedBefore = { input: { Phone: '555-010-2030' }, toolInvocationToken: undefined };
    expect((await tool.prepareInvocation(confirmedBefore)).invocationMessage).toMatch(
      /^Phone Lookup for 5550102030: /,
    );

    // The user types the person, sees what is held, and confirms.
    ui.answer = (m) => (m.modal ? 'Forget' : undefined);
    const report = await run(COMMAND.forgetPerson, '+1 555 010 2030; JANE.DOE@example.com');
    const asked = ui.messages.find((m) => m.modal);
    expect(asked?.text).toBe('Forget phone 5550102030; e-mail jane.doe@example.com?');
    expect(asked?.detail).toContain(
      'The History holds 2 calls and 2 answer caches hold 2 answers on this person',
    );
    expect(report).toMatchObject({ complete: true, suppressed: { local: 2 } });
    expect(ui.messages.at(-1)).toMatchObject({ severity: 'info' });
    expect(ui.messages.at(-1)?.text).toMatch(/^Forgotten: 4 kept answers removed/);

    // Nothing of the person anywhere: the History's file and the folder it is in (no aside file
    // left), the caches, the data folder, and globalState (where the History no longer goes).
    expect(history().map((e) => e.input)).toEqual([{ Phone: '5550109999' }]);
    expect(byteScan([storage, cache, mcp, dataDir], PERSON)).toEqual([]);
    expect(storedHistoryText(harness.context)).not.toMatch(/5550102030|jane\.doe/i);
    expect(harness.context.globalState.dump()).not.toMatch(/5550102030|jane\.doe/i);
    // Hashes are hex: a bare "555" turns up in them by chance, the whole number or a name cannot.
    expect(readFileSync(suppressionPath(dataDir), 'utf8')).not.toMatch(/5550102030|010-2030|jane|example/i);
    expect(readForgetLog(dataDir)).toHaveLength(1);
    // The Enrichment log names stores and counts, never the person.
    expect(ui.output.join('\n')).not.toMatch(/5550102030|jane\.doe/i);

    // The palette: refused before the History or the service.
    const before = requests();
    expect(await run(operationCommandId(lookup), { Phone: '555.010.2030' })).toBeUndefined();
    expect(ui.messages.at(-1)?.text).toMatch(
      /^Phone Lookup: not sent: forgotten at the person's request on \d{4}-\d{2}-\d{2}/,
    );
    // A chat tool: refused too.
    const chatInput = { input: { Phone: '5550102030' }, toolInvocationToken: undefined };
    expect((await tool.prepareInvocation(chatInput)).invocationMessage).toBe(
      "Phone Lookup: forgotten at the person's request, nothing sent",
    );
    const said = await tool.invoke(chatInput, token);
    expect(said.content[0]?.value).toMatch(/not sent: forgotten at the person's request/);
    // The call confirmed before the forget: refused by the purchase path itself.
    const late = await tool.invoke(confirmedBefore, token);
    expect(late.content[0]?.value).toMatch(
      /^Phone Lookup: the confirmation said "free: answered from history", but not sent: forgotten at the person's request/,
    );
    // A file's plan: the person's row is invalid, nothing to buy for them.
    const work = tempDir('enrich-vscode-file-');
    const inPath = join(work, 'leads.csv');
    writeFileSync(inPath, 'Phone\n(555) 010-2030\n5550104444\n');
    const planned = await planRun(
      csvRun(
        { baseUrl: harness.server.url, baseUrlV3: harness.server.url, sandbox: false },
        lookup,
        inPath,
        {},
      ),
    );
    expect(planned.plan).toMatchObject({ transactions: 1, invalid: 1 });
    expect(requests()).toBe(before);
  });

  it('cancelled at the question, it changes nothing', async () => {
    harness = await activateWithSandbox();
    await run(operationCommandId(lookup), { Phone: '5550102030' });
    ui.answer = () => undefined;
    expect(await run(COMMAND.forgetPerson, '5550102030')).toBeUndefined();
    expect(history()).toHaveLength(1);
    expect(readForgetLog(dataDir)).toEqual([]);
  });

  it('refuses what is not a person, in the input box, before anything is done', async () => {
    harness = await activateWithSandbox();
    ui.replies.push({ type: 'Jane Doe' }, { type: '555010203' }, { cancel: true });
    expect(await run(COMMAND.forgetPerson)).toBeUndefined();
    expect(ui.seen.map((s) => s.validationMessage)).toEqual([
      '"Jane Doe" is not a phone, an e-mail, or a name and street line ("Jane Doe, 12 Main St")',
      'Phone must be 10 digits (formatting and a leading 1 are fine); got "555010203"',
    ]);
  });

  it('a person forgotten while their call is under way is not added to the History', async () => {
    harness = await activateWithSandbox({ sandbox: { latencyMs: 1500 } });
    await run(operationCommandId(lookup), { Phone: '5550109999' });
    const before = requests();
    const call = run(operationCommandId(lookup), { Phone: '(555) 010-2030' });
    // The call has passed the check: its request is at the service.
    while (requests() === before) await new Promise((r) => setTimeout(r, 20));
    const read = identitiesOf({ Phone: '5550102030' });
    if (!read.ok) throw new Error(read.message);
    await forgetEverywhere({ dataDir, cacheDir }, read.identities);
    await call;
    expect(history().map((e) => e.input)).toEqual([{ Phone: '5550109999' }]);
    expect(byteScan([harness.context.globalStorageUri.fsPath], { phone: PERSON.phone })).toEqual([]);
  });

  it('a person forgotten with enrich forget leaves the History at the next activation', async () => {
    harness = await activateWithSandbox();
    await run(operationCommandId(lookup), { Phone: '5550102030' });
    await run(operationCommandId(lookup), { Phone: '5550109999' });
    const read = identitiesOf({ Phone: '5550102030' });
    if (!read.ok) throw new Error(read.message);
    await forgetEverywhere({ dataDir, cacheDir }, read.identities);
    // The window reloads: the same global storage folder, a new activation.
    for (const d of harness.context.subscriptions.splice(0)) d.dispose();
    await activate(harness.context as unknown as vscode.ExtensionContext);
    expect(history().map((e) => e.input)).toEqual([{ Phone: '5550109999' }]);
  });
});
