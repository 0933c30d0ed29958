// "Enrichment: Forget a Person" (issue 38) in a real VS Code (code-server) driven through Chromium,
// against a sandbox on 127.0.0.1: two lookups (the History file then holds the person), then the
// person forgotten from the palette (a modal says what is held and asks); a lookup of the person
// afterwards is refused and sends nothing; and, code-server and Chromium closed, a byte scan of the
// whole browser profile (IndexedDB, where VS Code's globalState lives, included), the user-data
// folder (the History file, in the extension's global storage) and the user's data and cache
// folders finds the person in no spelling, as bytes or as UTF-16: not in Chromium's History or
// session files either, which keep the page's titles (a result tab is titled with the time).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_FILE } from '../../src/history-file';
import {
  activeResult,
  answerInput,
  type CodeServer,
  closeAll,
  dialog,
  listFiles,
  notification,
  openWorkbench,
  personScan,
  runCommand,
  screenshot,
  screenshotIfFailed,
  setApiKey,
  startCodeServer,
} from './code-server';

const KEY = 'e2e-forget-key-R4T8Y2U6';
// Not 5550102030: that is the extension's own example phone, in its manifest (which code-server
// copies into the user-data folder) and its bundles.
const PERSON = { phone: '5550187766' };
const OTHER = '5550104321';

let sandbox: SandboxServer;
let server: CodeServer;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  sandbox = await startSandboxServer({ keys: [KEY] });
  server = await startCodeServer({
    'enrich.baseUrl': sandbox.url,
    'enrich.baseUrlV3': sandbox.url,
    'enrich.resultView': 'json',
  });
  ({ context, page } = await openWorkbench(server));
});

afterEach((test) => screenshotIfFailed(page, test.task));

afterAll(() => closeAll(context, server, sandbox));

async function lookup(typed: string, phone: string): Promise<void> {
  await runCommand(page, 'Enrichment: Phone Lookup');
  await answerInput(page, 'Phone Lookup', typed);
  expect(JSON.parse(await activeResult(page, 'Phone Lookup', phone)).input).toEqual({ Phone: phone });
  // The page is titled with the active tab, and Chromium keeps page titles in its History and
  // session files: the tab names the operation and the time, never the person.
  await page.waitForFunction(() => document.title.startsWith('Phone Lookup'));
  expect(await page.title()).not.toContain(phone);
}

describe('Forget a Person in code-server', () => {
  it('says what is held, removes it once confirmed, and refuses the person from then on', async () => {
    await setApiKey(page, KEY);
    await lookup('(555) 018-7766', PERSON.phone);
    await lookup(OTHER, OTHER);
    // The History is in its file, where the scan below looks.
    expect(personScan([historyFile()], PERSON).length).toBeGreaterThan(0);
    // The person's result tab is closed, as a user would before forgetting them.
    await runCommand(page, 'View: Close All Editors');

    await runCommand(page, 'Enrichment: Forget a Person');
    await answerInput(page, 'Forget a Person', '555-018-7766');
    const question = dialog(page, 'Forget phone 5550187766?');
    await question.waitFor();
    await expect(question.textContent()).resolves.toContain('The History holds 1 call');
    await screenshot(page, 'forget-1-question');
    await question.locator('.monaco-button', { hasText: 'Forget' }).click();
    await notification(page, /Forgotten: 1 kept answer removed/).waitFor();
    await screenshot(page, 'forget-2-done');

    const requests = sandbox.sandbox.requests();
    await runCommand(page, 'Enrichment: Phone Lookup');
    await answerInput(page, 'Phone Lookup', '5550187766');
    await notification(page, /not sent: forgotten at the person's request on \d{4}-\d{2}-\d{2}/).waitFor();
    expect(sandbox.sandbox.requests()).toBe(requests);
    // The other person is still answered, from the History.
    await runCommand(page, 'Enrichment: Show History');
    await page.locator('.pane-body .monaco-list-row', { hasText: `Phone Lookup: ${OTHER}` }).waitFor();
    await expect(
      page.locator('.pane-body .monaco-list-row', { hasText: 'Phone Lookup: 5550187766' }).count(),
    ).resolves.toBe(0);
  });

  it('leaves no byte of the person in the browser profile, the user data or the extension’s folders', async () => {
    await context.close();
    await server.close();
    // The History file still holds the other person's call: the scan reads it.
    expect(readFileSync(historyFile(), 'utf8')).toContain(OTHER);
    // The extension's data folder is the one scanned (code-server.ts), not one of the test process's.
    expect(existsSync(join(server.root, 'data', 'enrich', 'suppression.json'))).toBe(true);
    const scanned = [
      server.browserProfileDir,
      server.userDataDir,
      join(server.root, 'data', 'enrich'),
      join(server.root, 'cache', 'enrich'),
    ];
    const files = scanned.flatMap((dir) => (existsSync(dir) ? listFiles(dir) : []));
    expect(files).toContain(historyFile());
    expect(files.some((file) => file.includes(join('Default', 'IndexedDB')))).toBe(true);
    const hits = personScan(scanned, PERSON);
    console.log(
      `scanned ${files.length} files (browser profile with IndexedDB, user data, data and cache folders): ${hits.length} hit(s) ${hits.join('; ')}`,
    );
    expect(hits).toEqual([]);
    // Chromium's History and session files were among those scanned.
    expect(files).toContain(join(server.browserProfileDir, 'Default', 'History'));
    expect(files.some((file) => file.startsWith(join(server.browserProfileDir, 'Default', 'Sessions')))).toBe(
      true,
    );
  });
});

/** The History's file, in the extension's global storage folder of code-server's user data. */
function historyFile(): string {
  return join(server.userDataDir, 'User', 'globalStorage', 'enrich.enrich-vscode', HISTORY_FILE);
}
