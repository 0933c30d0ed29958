// The packaged .vsix in code-server, as a new user without a key meets it: "Try Without a Key"
// starts the sandbox inside the extension (the test starts none for this part), Phone Lookup and
// TCPA Verify answer from it, and the result view shows grouped fields and likely meanings.

import { getOperation, readResponse } from '@enrich/core';
import { createSandbox } from '@enrich/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  activeEditorText,
  answerInput,
  type CodeServer,
  closeAll,
  lastWebview,
  notification,
  openWorkbench,
  progressGone,
  runCommand,
  screenshot,
  screenshotIfFailed,
  startCodeServer,
} from './code-server';

const PHONE = '5550102030';

let server: CodeServer;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  // No base URL in the settings: the defaults point at the paid service, and no key is set.
  server = await startCodeServer({});
  ({ context, page } = await openWorkbench(server));
});

afterEach((test) => screenshotIfFailed(page, test.task));

afterAll(() => closeAll(context, server));

/** What the sandbox answers, from a separate in-process sandbox (same seed, the demo key). */
function demoAnswer(id: 'phone-lookup' | 'tcpa-verify', body: Record<string, string>) {
  const op = getOperation(id);
  const answer = createSandbox().handle({
    method: 'POST',
    path: op.path,
    headers: { 'x-api-key': 'sandbox-demo-key', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const outcome = readResponse(op, answer);
  if (outcome.kind !== 'record') throw new Error(`sandbox gave ${answer.status}`);
  return outcome.record as Record<string, Record<string, string> | string>;
}

describe('Try Without a Key in code-server', () => {
  // Set-up, not a test: the sandbox started inside the extension, as the status bar says.
  beforeAll(async () => {
    await runCommand(page, 'Enrichment: Try Without a Key');
    await page.locator('.statusbar-item', { hasText: 'Enrichment: trying without a key' }).waitFor();
    await notification(page, 'Trying without a key').waitFor();
  });

  it('answers Phone Lookup from it, shown as grouped fields in the result view', async () => {
    await runCommand(page, 'Enrichment: Phone Lookup');
    await answerInput(page, 'Phone Lookup', PHONE);
    const view = lastWebview(page);
    await view.locator('h1', { hasText: `Phone Lookup: ${PHONE}` }).waitFor();
    const expected = demoAnswer('phone-lookup', { Phone: PHONE }) as Record<string, Record<string, string>>;
    for (const title of ['Name', 'Address']) await view.locator('h2', { hasText: title }).waitFor();
    const firstName = view.locator('tr', { has: view.locator('th', { hasText: /^FName$/ }) });
    await expect(firstName.locator('.value').textContent()).resolves.toBe(expected.Name?.FName);
    await expect(view.locator('.summary').textContent()).resolves.toContain('a transaction was spent');
    await view.locator('button', { hasText: 'Call again (spends 1 transaction)' }).waitFor();
    await progressGone(page);
    await screenshot(page, 'try-1-phone-lookup-view');
  });

  it('shows TCPA Verify codes with their likely meaning, marked "likely"', async () => {
    await runCommand(page, 'Enrichment: TCPA Verify');
    await answerInput(page, 'TCPA Verify: Phone', PHONE);
    await answerInput(page, 'TCPA Verify: Last name', 'Doe');
    const view = lastWebview(page);
    await view.locator('h1', { hasText: 'TCPA Verify' }).waitFor();
    const expected = demoAnswer('tcpa-verify', { phone: PHONE, last_name: 'Doe' });
    const row = view.locator('tr', { has: view.locator('th', { hasText: /^verification_code$/ }) });
    await expect(row.locator('.value').textContent()).resolves.toBe(expected.verification_code);
    await expect(row.locator('.likely').textContent()).resolves.toMatch(/^likely: \S/);
    console.log(
      `result view: verification_code ${expected.verification_code}, ${await row.locator('.likely').textContent()}`,
    );
    await progressGone(page);
    await screenshot(page, 'try-2-tcpa-verify-likely');
  });

  it('opens the JSON document from the view, one click away', async () => {
    await lastWebview(page).locator('button', { hasText: 'Open JSON document' }).click();
    await page.locator('.tab', { hasText: 'TCPA Verify' }).filter({ hasText: '.json' }).waitFor();
    const shown = JSON.parse(await activeEditorText(page));
    expect(shown).toMatchObject({ operation: 'TCPA Verify', input: { phone: PHONE, last_name: 'Doe' } });
    expect(shown.record.verification_code).toBe(
      demoAnswer('tcpa-verify', { phone: PHONE, last_name: 'Doe' }).verification_code,
    );
  });

  it('returns to the real service from the status bar', async () => {
    await page.locator('.statusbar-item', { hasText: 'Enrichment: trying without a key' }).click();
    await notification(page, 'Calls go to the real service again').waitFor();
    await page.locator('.statusbar-item', { hasText: 'Enrichment' }).locator('.codicon-warning').waitFor();
    expect(await page.locator('.statusbar-item', { hasText: 'trying without a key' }).count()).toBe(0);
  });
});
