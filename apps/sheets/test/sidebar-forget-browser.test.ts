// Issue 38, Sheets: "Forget a person…" in the real sidebar (headless Chromium, as
// sidebar-browser.test.ts): the menu item opens the sidebar on its section; what is typed is read
// with core's rules in the page (a spelling that is not a person is refused there, nothing sent to
// the server); Forget says what it removed and offers the cells that still show the person; "Clear
// them" clears those and no other. Screenshot: test-results/sidebar-forget.png (git-ignored).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newRuntime, phone } from './helpers.js';
import { launchChromium, NO_HOLD, openSidebar, poll, RESULTS } from './sidebar-page.js';

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(RESULTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
});

test('Forget a person… in the sidebar: refused spelling, forgotten, the cells offered and cleared', {
  timeout: 120_000,
}, async () => {
  const rt = newRuntime();
  rt.type('Sheet1', 'A1:A4', [['Phone'], ['(555) 010-2030'], [phone(1)], [phone(2)]]);
  const request = {
    selection: { sheetId: rt.sheet().id, row: 1, column: 1, numRows: 4, numColumns: 1 },
    operation: 'phone-lookup',
    mapping: { Phone: 0 },
    columns: ['FName', 'City'],
    targetColumn: 2,
  };
  const plan = rt.scriptRun(rt.owner, 'planRun', request) as { transactions: number };
  let progress = rt.scriptRun(rt.owner, 'startRun', request, false, plan.transactions) as {
    runId: string;
    finished: boolean;
  };
  while (!progress.finished) progress = rt.scriptRun(rt.owner, 'runChunk', progress.runId) as typeof progress;
  expect(rt.sandbox.transactions()).toBe(3);

  const page = await openSidebar(browser, rt, rt.owner, NO_HOLD(), 'showForget');
  expect(await page.locator('#forget-section').isVisible()).toBe(true);
  const box = page.getByLabel('Their phone, e-mail, or name and street line; several separated by ";"');
  await poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);

  // Not a person: refused in the page, nothing asked of the server.
  const calls = () =>
    page.evaluate(() => (window as unknown as { __gasState: { calls: string[] } }).__gasState.calls);
  await box.fill('555-01');
  await page.getByRole('button', { name: 'Forget' }).click();
  await poll(() => page.locator('#message').textContent()).toBe(
    'Phone must be 10 digits (formatting and a leading 1 are fine); got "55501". Nothing was done.',
  );
  expect(await calls()).not.toContain('forgetPerson');

  await box.fill('+1 555.010.2030');
  await page.getByRole('button', { name: 'Forget' }).click();
  await poll(() => page.locator('#forget-result').textContent()).toBe(
    'Forgotten on 2026-11-22 (UTC). Removed 1 kept answer from the hidden sheet and 1 answer from the document cache; ' +
      "deleted 1 copy kept for Undo. Added 1 identity to this spreadsheet's list of people forgotten (salted hashes: " +
      'no number, address or name), which every formula, run and automation here checks before anything else.',
  );
  expect(await page.locator('#forget-offer-text').textContent()).toMatch(
    /^Your sheets still show what was bought about them in Sheet1!B2:D2\. Clear those cells\?/,
  );
  await page.screenshot({ path: join(RESULTS, 'sidebar-forget.png'), fullPage: true });
  expect(await page.locator('#undo-section').isVisible()).toBe(false); // its copy is deleted
  expect(rt.values('Sheet1', 'B2:D2')[0]?.[0]).toMatch(/^ok/);
  await page.getByRole('button', { name: 'Clear them' }).click();
  await poll(() => page.locator('#message').textContent()).toBe('Cleared 1 range; 0 formulas entered again.');
  expect(await page.locator('#forget-offer').isVisible()).toBe(false);
  expect(rt.values('Sheet1', 'B2:D2')).toEqual([['', '', '']]);
  expect(rt.values('Sheet1', 'B3')[0]?.[0]).toMatch(/^ok/);
  expect(rt.values('Sheet1', 'A2')[0]?.[0]).toBe('(555) 010-2030');
  expect(rt.sandbox.transactions()).toBe(3);
});
