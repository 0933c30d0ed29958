// "Enrichment: Forget a Person" (issue 38) in a real VS Code (code-server) driven through Chromium,
// against a sandbox on 127.0.0.1: two lookups, then the person forgotten from the palette (a modal
// says what is held and asks); a lookup of the person afterwards is refused and sends nothing; and,
// code-server closed, a byte scan of what the extension keeps in files (its global storage, the
// user's data and cache folders) finds the person in no spelling. Not scanned: the extension's
// History lives in VS Code's globalState, which code-server keeps in the browser's IndexedDB; its
// LevelDB log still holds the bytes of the entry removed until LevelDB compacts it (seen: the
// person's phone in 000003.log), as Chromium's own History holds the result tab's title.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { byteScan } from '../../../../packages/bulk/test/byte-scan';
import {
  answerInput,
  type CodeServer,
  closeAll,
  dialog,
  notification,
  openWorkbench,
  runCommand,
  screenshot,
  screenshotIfFailed,
  setApiKey,
  startCodeServer,
} from './code-server';

const KEY = 'e2e-forget-key-R4T8Y2U6';
const PERSON = { phone: '5550102030' };

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

async function lookup(phone: string, tab: string): Promise<void> {
  await runCommand(page, 'Enrichment: Phone Lookup');
  await answerInput(page, 'Phone Lookup', phone);
  await page.locator('.tab', { hasText: tab }).waitFor();
}

describe('Forget a Person in code-server', () => {
  it('says what is held, removes it once confirmed, and refuses the person from then on', async () => {
    await setApiKey(page, KEY);
    await lookup('(555) 010-2030', 'Phone Lookup 5550102030');
    await lookup('5550104321', 'Phone Lookup 5550104321');
    // The person's result tab is closed, as a user would before forgetting them.
    await runCommand(page, 'View: Close All Editors');

    await runCommand(page, 'Enrichment: Forget a Person');
    await answerInput(page, 'Forget a Person', '555-010-2030');
    const question = dialog(page, 'Forget phone 5550102030?');
    await question.waitFor();
    await expect(question.textContent()).resolves.toContain('The History holds 1 call');
    await screenshot(page, 'forget-1-question');
    await question.locator('.monaco-button', { hasText: 'Forget' }).click();
    await notification(page, /Forgotten: 1 kept answer removed/).waitFor();
    await screenshot(page, 'forget-2-done');

    const requests = sandbox.sandbox.requests();
    await runCommand(page, 'Enrichment: Phone Lookup');
    await answerInput(page, 'Phone Lookup', '5550102030');
    await notification(page, /not sent: forgotten at the person's request on \d{4}-\d{2}-\d{2}/).waitFor();
    expect(sandbox.sandbox.requests()).toBe(requests);
    // The other person is still answered, from the History.
    await runCommand(page, 'Enrichment: Show History');
    await page.locator('.pane-body .monaco-list-row', { hasText: 'Phone Lookup: 5550104321' }).waitFor();
    await expect(
      page.locator('.pane-body .monaco-list-row', { hasText: 'Phone Lookup: 5550102030' }).count(),
    ).resolves.toBe(0);
  });

  it('leaves no byte of the person in what the extension keeps', async () => {
    await context.close();
    await server.close();
    const kept = [
      join(server.userDataDir, 'User', 'globalStorage'),
      join(server.root, 'data', 'enrich'),
      join(server.root, 'cache', 'enrich'),
    ];
    // The extension's data folder is the one scanned (code-server.ts), not one of the test process's.
    expect(existsSync(join(server.root, 'data', 'enrich', 'suppression.json'))).toBe(true);
    expect(byteScan(kept, PERSON)).toEqual([]);
  });
});
