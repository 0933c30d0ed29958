// Issue 39, must show: the built sidebar in headless Chromium (as sidebar-browser.test.ts) for the
// allowance and the automation switch. Check says before Start that the run would cross the
// allowance and where it stops; Start stops there; the allowance line says what was spent; raising
// it in the form lets Resume finish, each row bought once. The switch turns "Keep this range
// enriched" on; an hour later the history shows the run that enriched the new rows; the switch
// turns it off. Where a written answer came from, for the selected cell; Undo the last run, free.
// The screenshot goes to test-results/sidebar-allowance-automation.png (git-ignored), and with
// SHEETS_PICTURES=1 (`pnpm --filter @enrich/sheets pictures`) to pictures/, which the README shows.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newRuntime, phone } from './helpers.js';
import { launchChromium, NO_HOLD, openSidebar, poll, RESULTS } from './sidebar-page.js';

const PICTURES = process.env.SHEETS_PICTURES === '1' ? join(RESULTS, '..', 'pictures') : RESULTS;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(PICTURES, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
});

test('allowance and automation in the real sidebar: stop at the allowance, raise it, resume; switch on, a run, off; provenance; undo', {
  timeout: 240_000,
}, async () => {
  const rt = newRuntime({ allowance: 'default', latencyMs: 50 });
  rt.sheet().maxRows = 800;
  rt.type('Sheet1', 'A1:B1', [['Name', 'Phone']]);
  rt.type(
    'Sheet1',
    'A2:B701',
    Array.from({ length: 700 }, (_, i) => [`Lead ${i}`, phone(i)]),
  );
  rt.type('Sheet1', 'D5', [['typed before the run']]);
  rt.select('Sheet1', 'A1:B701');
  let page = await openSidebar(browser, rt, rt.owner, NO_HOLD());
  // Folded, the allowance panel says where the key stands; open, the whole line.
  expect(await page.locator('#allowance-summary').textContent()).toBe('0 of 500 today');
  await page.locator('#spend-section > summary').click();
  await poll(() => page.locator('#allowance-text').textContent()).toBe(
    'Spent today: 0 · this month: 0 · allowance: 500 a day, 10,000 a month (500 left today).',
  );

  // Check says the run would cross the allowance, and where it stops.
  await page.getByLabel('Operation', { exact: true }).selectOption('phone-lookup');
  await page.getByLabel('Results start in column').fill('D');
  await page.getByRole('button', { name: 'Check' }).click();
  await poll(() => page.locator('#plan').textContent()).toContain('at most 700 transactions');
  expect(await page.locator('#plan').textContent()).toContain(
    'Your allowance here (500 a day) has 500 left today: the run will stop before row 502. Raise it under Spend and allowance to go further.',
  );
  await page.getByLabel(/Overwrite the 1 non-empty cells/).check();
  await page.getByRole('button', { name: 'Start' }).click();
  await poll(() => page.locator('#message').textContent()).toContain(
    'Your allowance in this spreadsheet is reached (500 transactions a day): the run stopped before row 502',
  );
  expect(rt.sandbox.transactions()).toBe(500);
  await poll(() => page.locator('#allowance-text').textContent()).toBe(
    'Spent today: 500 · this month: 500 · allowance: 500 a day, 10,000 a month (0 left today).',
  );
  expect(await page.getByRole('button', { name: 'Resume' }).isVisible()).toBe(true);

  // Raised in the form (the owner's own allowance), then Resume: the other 200, none twice.
  await page.getByLabel('Transactions a day (UTC)').fill('1000');
  await page.getByRole('button', { name: 'Save allowance' }).click();
  await poll(() => page.locator('#allowance-text').textContent()).toContain('(500 left today)');
  await page.getByRole('button', { name: 'Resume' }).click();
  await poll(() => page.locator('#message').textContent()).toMatch(/^Done: 700 rows/);
  expect(rt.sandbox.transactions()).toBe(700);
  expect(new Set(rt.http.map((h) => h.body)).size).toBe(700);

  // Keep this range enriched: on, with the run described above the switch.
  expect(await page.locator('#auto-summary').textContent()).toBe('off');
  await page.locator('#auto-section > summary').click();
  await page.getByLabel('Enrich new rows every hour').check();
  await poll(() => page.locator('#auto-text').textContent()).toBe(
    'On: Phone Lookup on the rows below A1:B1, results from column D. First run within the hour.',
  );
  expect(rt.triggers.live()).toMatchObject([{ user: rt.owner.email, handler: 'runAutomation' }]);
  rt.type(
    'Sheet1',
    'A702:B721',
    Array.from({ length: 20 }, (_, i) => [`New ${i}`, phone(5_000 + i)]),
  );
  rt.passTime(3_600_000);
  expect(rt.sandbox.transactions()).toBe(720);

  // The sidebar opened again: the automation's run in its history; where an answer came from.
  await page.close();
  rt.select('Sheet1', 'E710');
  page = await openSidebar(browser, rt, rt.owner, NO_HOLD());
  await poll(() => page.locator('#auto-history li').allTextContents()).toEqual([
    '2026-11-22 10:00 UTC · 20 rows · 20 spent · done',
    expect.stringMatching(/^2026-11-22 09:\d\d UTC · turned on$/),
  ]);
  expect(await page.locator('#auto-summary').textContent()).toBe('on, every hour');
  await page.locator('#auto-section > summary').click();
  await page.locator('#auto-history-details > summary').click();
  await page.locator('#provenance-section > summary').click();
  await page.getByRole('button', { name: 'Tell me for the selected cell' }).click();
  await poll(() => page.locator('#provenance-text').textContent()).toBe(
    'Sheet1!E710: Enrich: Phone Lookup, bought 2026-11-22 10:00 UTC.',
  );
  await page.locator('#spend-section > summary').click();
  await page.screenshot({ path: join(PICTURES, 'sidebar-allowance-automation.png'), fullPage: true });

  // Off: the trigger is gone, and nothing runs any more.
  await page.getByLabel('Enrich new rows every hour').uncheck();
  await poll(() => page.locator('#auto-text').textContent()).toBe('Off.');
  expect(rt.triggers.live()).toHaveLength(0);
  rt.type('Sheet1', 'A722:B722', [['Later', phone(9_999)]]);
  rt.passTime(3 * 3_600_000);
  expect(rt.sandbox.transactions()).toBe(720);

  // Undo the last sidebar run: its cells as they were before it (the typed cell back), nothing spent.
  expect(await page.locator('#undo-text').textContent()).toMatch(
    /^The run of 2026-11-22 09:\d\d UTC wrote Sheet1!D1:N701\.$/,
  );
  await page.getByRole('button', { name: 'Undo the last run' }).click();
  await poll(() => page.locator('#message').textContent()).toBe(
    'Sheet1!D1:N701 holds again what it held before the run. Nothing was spent; running it again costs nothing.',
  );
  expect(rt.values('Sheet1', 'D4:D6')).toEqual([[''], ['typed before the run'], ['']]);
  expect(rt.values('Sheet1', 'D702:D702')).toEqual([['ok']]);
  expect(rt.sandbox.transactions()).toBe(720);
  expect(rt.spreadsheet.sheets.map((s) => s.name)).toEqual(['Sheet1', '_enrich_answers']);
});
