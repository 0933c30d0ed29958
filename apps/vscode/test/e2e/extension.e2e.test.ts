// The packaged .vsix in a real VS Code (code-server), driven through Chromium like a user, against
// a sandbox on 127.0.0.1. Steps run in order and share one workbench. Screenshots go to
// test-results/ (kept by CI as artifacts); none is taken while a key is being typed.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getOperation, readResponse, validateField } from '@enrich/core';
import { createSandbox, type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_FILE } from '../../src/history-file';
import {
  activeResult,
  answerInput,
  type CodeServer,
  closeAll,
  dialog,
  filesContaining,
  listFiles,
  notification,
  openWorkbench,
  progressGone,
  quickInput,
  quickInputBox,
  quickInputMessage,
  runCommand,
  SCREENSHOTS,
  screenshot,
  screenshotIfFailed,
  setApiKey,
  startCodeServer,
} from './code-server';

// Distinctive, so that finding one in a file can only mean it leaked there.
const KEY = 'e2e-key-Q7ZK2M9X4W';
const WRONG_KEY = 'e2e-wrong-key-J5RT8V3N6P';
const PHONE = '5550102030';

let sandbox: SandboxServer;
let server: CodeServer;
let context: BrowserContext;
let page: Page;
const screenshots: string[] = [];

beforeAll(async () => {
  sandbox = await startSandboxServer({ keys: [KEY] });
  server = await startCodeServer({
    'enrich.baseUrl': sandbox.url,
    'enrich.baseUrlV3': sandbox.url,
    // These steps read each result's JSON document; try-and-csv.e2e.test.ts covers the result view.
    'enrich.resultView': 'json',
  });
  ({ context, page } = await openWorkbench(server));
});

afterEach((test) => screenshotIfFailed(page, test.task));

afterAll(() => closeAll(context, server, sandbox));

async function shot(name: string) {
  // A key box on screen would be a leak in the picture: never photograph one.
  expect(await quickInput(page).filter({ hasText: 'Set API Key' }).isVisible()).toBe(false);
  await progressGone(page);
  screenshots.push(await screenshot(page, name));
}

/** What the sandbox answers for this phone, from a separate in-process sandbox (same seed). */
function sandboxRecord(phone: string) {
  const op = getOperation('phone-lookup');
  const answer = createSandbox({ keys: [KEY] }).handle({
    method: 'POST',
    path: op.path,
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ Phone: phone }),
  });
  const outcome = readResponse(op, answer);
  if (outcome.kind !== 'record') throw new Error(`sandbox gave ${answer.status}`);
  return outcome.record as { Name: Record<string, string>; Address: Record<string, unknown> };
}

describe('the extension in code-server', () => {
  it('activates on its command, not at startup', async () => {
    await expect(page.locator('.statusbar-item', { hasText: 'Enrichment' }).count()).resolves.toBe(0);
  });

  it('sets the key through Enrichment: Set API Key (a password box)', async () => {
    await setApiKey(page, KEY);
    const status = page.locator('.statusbar-item', { hasText: 'Enrichment (sandbox)' });
    await status.waitFor();
    await expect(status.locator('.codicon-key').count()).resolves.toBe(1);
  });

  it('runs Phone Lookup from the palette with a typed number and shows the sandbox record', async () => {
    const before = sandbox.sandbox.transactions(KEY);
    await runCommand(page, 'Enrichment: Phone Lookup');
    await answerInput(page, 'Phone Lookup', '(555) 010-2030');
    const shown = JSON.parse(await activeResult(page, 'Phone Lookup', PHONE));
    const expected = sandboxRecord(PHONE);
    expect(shown).toMatchObject({
      operation: 'Phone Lookup',
      input: { Phone: PHONE },
      status: 200,
      transaction: 'spent',
    });
    expect(shown.record.Name).toEqual(expected.Name);
    expect(shown.record.Address).toEqual(expected.Address);
    expect(sandbox.sandbox.transactions(KEY)).toBe(before + 1);
    console.log(
      `result document: ${expected.Name.FName} ${expected.Name.LName}, ${expected.Address.House} ${expected.Address.Street} ${expected.Address.StrType}, ${expected.Address.City} ${expected.Address.State} ${expected.Address.Zip}`,
    );
    await shot('1-phone-lookup-result');
  });

  it('lists the call in the History view', async () => {
    await runCommand(page, 'Enrichment: Show History');
    const row = page.locator('.pane-body .monaco-list-row', { hasText: `Phone Lookup: ${PHONE}` });
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('200');
    await shot('2-history-view');
  });

  it("offers the History's answer for the same lookup, and showing it spends no transaction", async () => {
    const requests = sandbox.sandbox.requests();
    const transactions = sandbox.sandbox.transactions(KEY);
    // The first lookup's result tab is closed, so that only showing the answer can bring it back.
    await runCommand(page, 'View: Close All Editors');
    await page.locator('.tab', { hasText: 'Phone Lookup' }).waitFor({ state: 'detached' });
    await runCommand(page, 'Enrichment: Phone Lookup');
    await answerInput(page, 'Phone Lookup', PHONE);
    const question = dialog(page, `Phone Lookup for ${PHONE} was answered`);
    await question.waitFor();
    await expect(question.textContent()).resolves.toMatch(
      /answered less than a minute ago\. It found a record\./,
    );
    const show = question.locator('.monaco-button', { hasText: 'Show that answer (no transaction)' });
    await question.locator('.monaco-button', { hasText: 'Call again (1 transaction)' }).waitFor();
    await shot('3-reuse-question');
    await show.click();
    await question.waitFor({ state: 'hidden' });
    // Shown for 5 s from when the document opens.
    await page
      .locator('.statusbar-item', { hasText: 'answer from the History, no transaction spent' })
      .waitFor();
    const shown = JSON.parse(await activeResult(page, 'Phone Lookup', PHONE));
    expect(shown).toMatchObject({ input: { Phone: PHONE }, status: 200, transaction: 'spent' });
    expect(shown.record.Name).toEqual(sandboxRecord(PHONE).Name);
    expect(sandbox.sandbox.requests()).toBe(requests);
    expect(sandbox.sandbox.transactions(KEY)).toBe(transactions);
  });

  it('refuses an invalid phone in the input box before any request', async () => {
    const requests = sandbox.sandbox.requests();
    const transactions = sandbox.sandbox.transactions();
    await runCommand(page, 'Enrichment: Phone Lookup');
    await answerInput(page, 'Phone Lookup', '555010203', false);
    const refused = validateField(getOperation('phone-lookup'), 'Phone', '555010203');
    if (refused.ok) throw new Error('core accepts the short phone');
    await quickInputMessage(page).filter({ hasText: refused.message }).waitFor();
    await page.keyboard.press('Enter');
    // Still open, still refusing, after Enter.
    await quickInputMessage(page).filter({ hasText: refused.message }).waitFor();
    await expect(quickInputBox(page).isVisible()).resolves.toBe(true);
    await shot('4-invalid-phone-refused');
    await page.keyboard.press('Escape');
    await quickInputBox(page).waitFor({ state: 'hidden' });
    // A later command completes, so anything the refused one might have sent would have arrived.
    await runCommand(page, 'Enrichment: Show History');
    await page
      .locator('.pane-body .monaco-list-row', { hasText: `Phone Lookup: ${PHONE}` })
      .first()
      .waitFor();
    expect(sandbox.sandbox.requests()).toBe(requests);
    expect(sandbox.sandbox.transactions()).toBe(transactions);
  });

  it('offers "Set API Key" on a 401 from a wrong key, and it sets a new key', async () => {
    await setApiKey(page, WRONG_KEY);
    await runCommand(page, 'Enrichment: Phone Lookup');
    await answerInput(page, 'Phone Lookup', PHONE);
    // The History holds this lookup's answer: the user asks for a new call on purpose.
    const question = dialog(page, `Phone Lookup for ${PHONE} was answered`);
    await question.locator('.monaco-button', { hasText: 'Call again (1 transaction)' }).click();
    await question.waitFor({ state: 'hidden' });
    const refused = notification(page, 'refused (401)');
    await refused.waitFor();
    const button = refused.locator('.monaco-button', { hasText: 'Set API Key' });
    await button.waitFor();
    await shot('5-wrong-key-401');
    await button.click();
    await quickInput(page).filter({ hasText: 'Set API Key' }).waitFor({ state: 'visible' });
    await expect(quickInputBox(page).getAttribute('type')).resolves.toBe('password');
    await answerInput(page, 'Set API Key', KEY);
    await notification(page, 'API key saved').last().waitFor();
    await runCommand(page, 'Enrichment: Phone Lookup');
    await answerInput(page, 'Phone Lookup', '5550102031');
    const shown = JSON.parse(await activeResult(page, 'Phone Lookup', '5550102031'));
    expect(shown).toMatchObject({ input: { Phone: '5550102031' }, status: 200 });
  });

  it('asks Auto Append which input first, then only for that one', async () => {
    await runCommand(page, 'Enrichment: Auto Append');
    await quickInput(page).filter({ hasText: 'which will you give' }).waitFor({ state: 'visible' });
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'E-mail' }).click();
    await answerInput(page, 'Auto Append: E-mail', 'jane.doe@example.com');
    // The record (four vehicle slots) is longer than the screen: read the document's head.
    const head = await activeResult(page, 'Auto Append', 'jane.doe@example.com');
    expect(head).toMatch(
      /"operation": "Auto Append",\s*"input": \{\s*"Email": "jane.doe@example.com"\s*\},\s*"status": 200/,
    );
    await shot('6-auto-append-result');
  });

  it('keeps history and the key across a reload of the workbench', async () => {
    await page.reload();
    await page.locator('.monaco-workbench').waitFor();
    await runCommand(page, 'Enrichment: Show History');
    await page
      .locator('.pane-body .monaco-list-row', { hasText: `Phone Lookup: ${PHONE}` })
      .first()
      .waitFor();
    const key = page.locator('.statusbar-item', { hasText: 'Enrichment (sandbox)' }).locator('.codicon-key');
    await key.waitFor();
    expect(await key.count()).toBe(1);
    const rows = page.locator('.pane-body .monaco-list-row', { hasText: `Phone Lookup: ${PHONE}` });
    // The lookup's 200 is still listed (beside the 401 of the wrong key, which came after it).
    expect((await rows.allTextContents()).some((text) => text.includes('200'))).toBe(true);
  });

  it('leaves the key in no file: settings.json, the History file, the output log, screenshots', async () => {
    await context.close();
    await server.close();
    const files = [...listFiles(server.root), ...listFiles(SCREENSHOTS)];
    // Where each thing lives, found by what it holds, so the scan is known to cover it.
    const settings = join(server.userDataDir, 'User', 'settings.json');
    expect(readFileSync(settings, 'utf8')).toContain(sandbox.url);
    // The History is a file in the extension's global storage folder, no longer globalState (which
    // code-server keeps in the browser's IndexedDB).
    const historyFile = join(
      server.userDataDir,
      'User',
      'globalStorage',
      'enrich.enrich-vscode',
      HISTORY_FILE,
    );
    expect(files).toContain(historyFile);
    const historyStores = filesContaining(server.root, `"input":{"Phone":"${PHONE}"}`);
    expect(historyStores).toEqual([historyFile]);
    expect(readFileSync(historyFile, 'utf8')).toContain(`/v3/lookup/phone`);
    const logs = filesContaining(join(server.userDataDir, 'logs'), 'Phone Lookup POST');
    expect(logs.some((f) => f.endsWith('Enrichment.log'))).toBe(true);
    expect(screenshots.length).toBe(6);
    for (const file of screenshots) expect(existsSync(file)).toBe(true);
    console.log(
      `scanned ${files.length} files (user data, extensions, browser profile, screenshots); history in ${historyStores.join(', ')}; output log ${logs.join(', ')}`,
    );
    for (const key of [KEY, WRONG_KEY]) {
      expect(filesContaining(server.root, key)).toEqual([]);
      expect(filesContaining(SCREENSHOTS, key)).toEqual([]);
    }
  });
});
