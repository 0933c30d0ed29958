// Must show 6: the sidebar page as built (dist/sidebar.html, as the server hands it to the browser)
// in real headless Chromium, with a google.script.run shim wired to the same fake runtime: a key
// saved through the form, then a bulk run of 600 rows driven by clicks and the keyboard, with a
// confirmation for a non-empty target cell, stopped, the sidebar closed and reopened, resumed, and
// finished. A screenshot is saved to test-results/sidebar-bulk-run.png.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { COLLABORATOR_KEY, newRuntime, OWNER_KEY, phone, referenceRecord } from './helpers.js';
import type { Runtime, User } from './runtime/index.js';
import {
  type Bridge,
  launchChromium,
  NO_HOLD,
  openSidebar as openPage,
  poll,
  RESULTS,
} from './sidebar-page.js';

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

const openSidebar = (rt: Runtime, user: User, bridge: Bridge) => openPage(browser, rt, user, bridge);

test('a bulk run in the real sidebar, driven by clicks: key, check, confirm, start, stop, reopen, resume', async () => {
  // A slow service (3 s an answer, on the runtime's clock) keeps every chunk at 250 rows
  // (chunk-size.ts), so the 600 rows take three chunks and Stop lands in the middle of the run.
  const rt = newRuntime({ latencyMs: 3000 });
  const user = rt.collaborator; // has no key of their own yet
  const rows: (string | number)[][] = Array.from({ length: 600 }, (_, i) => {
    if (i % 50 === 7) return [`Lead ${i}`, 'n/a'];
    return [`Lead ${i}`, i % 4 === 3 ? Number(phone(i - 1)) : phone(i)];
  });
  rt.type('Sheet1', 'A1:B1', [['Full name', 'Mobile']]);
  rt.type('Sheet1', 'A2:B601', rows);
  rt.type('Sheet1', 'D40', [['old note']]);
  rt.select('Sheet1', 'A1:B601');
  const distinct = new Set(rows.map((r) => String(r[1])).filter((p) => /^\d{10}$/.test(p))).size;

  let release: () => void = () => {};
  const bridge: Bridge = {
    chunkCalls: 0,
    holdAt: 2,
    gate: new Promise<void>((resolve) => {
      release = resolve;
    }),
  };
  let page = await openSidebar(rt, user, bridge);

  // The key, typed and saved with the keyboard; only its last 4 characters come back.
  await poll(() => page.locator('#key-status').textContent()).toBe('No key is set yet.');
  await page.getByLabel(/Your API key/).fill(COLLABORATOR_KEY);
  await page.getByLabel(/Your API key/).press('Enter');
  await poll(() => page.locator('#key-status').textContent()).toBe(
    `A key is set (ending in ${COLLABORATOR_KEY.slice(-4)}).`,
  );
  expect(await page.getByLabel(/Your API key/).inputValue()).toBe('');
  // Saving ran the free key check: one verdict per base, and nothing spent.
  await poll(() => page.locator('#key-check li').allTextContents()).toEqual([
    expect.stringMatching(/^https:\/\/api\.tdg1\.io: key accepted\. Key accepted/),
    expect.stringMatching(/^https:\/\/testapi\.tdg1\.io: key accepted\./),
  ]);
  await poll(() => page.locator('#message').textContent()).toBe(
    'Key saved and accepted by the service. Nothing was spent.',
  );
  expect(rt.sandbox.transactions()).toBe(0);

  // Operation, mapping (from the header row by name: "Mobile" is a phone column), outputs, target.
  await page.getByLabel('Operation', { exact: true }).selectOption('phone-lookup');
  expect(await page.locator('#map-Phone').inputValue()).toBe('1');
  // The output columns are folded; their summary says which are chosen.
  expect(await page.locator('#outputs-summary').textContent()).toBe('FName, LName, House… (10 of 17)');
  await page.locator('#outputs-details > summary').click();
  for (const column of ['House', 'PreDir', 'StrType', 'PostDir'])
    await page.getByLabel(column, { exact: true }).uncheck();
  await page.getByLabel('trace', { exact: true }).check();
  expect(await page.locator('#outputs-summary').textContent()).toBe('FName, LName, Street… (7 of 17)');
  expect(await page.getByLabel('Results start in column').inputValue()).toBe('C');

  await page.getByRole('button', { name: 'Check' }).click();
  await poll(() => page.locator('#plan').textContent()).toContain('600 rows');
  const plan = (await page.locator('#plan').textContent()) as string;
  expect(plan).toContain(`${distinct} distinct requests`);
  expect(plan).toContain(`at most ${distinct} transactions`);
  expect(plan).toContain('Results go to C1:J601');
  // D40 is not empty: Start waits for the confirmation.
  expect(await page.locator('#confirm').isVisible()).toBe(true);
  expect(await page.getByRole('button', { name: 'Start' }).isDisabled()).toBe(true);
  await page.getByLabel(/Overwrite the 1 non-empty cells/).check();
  expect(await page.getByRole('button', { name: 'Start' }).isDisabled()).toBe(false);

  // Start; Stop while the second chunk is on its way (held by the bridge); the run stops after it.
  await page.getByRole('button', { name: 'Start' }).click();
  await poll(() => page.locator('#progress-text').textContent()).toMatch(/^250 of 600 rows/);
  await page.getByRole('button', { name: 'Stop' }).click();
  release();
  await poll(() => page.locator('#message').textContent()).toContain('Stopped.');
  expect(await page.locator('#progress-bar').getAttribute('value')).toBe('500');
  await page.close();

  // The sidebar is closed and opened again: it offers to resume.
  page = await openSidebar(rt, user, bridge);
  await poll(() => page.locator('#resume-section').isVisible()).toBe(true);
  expect(await page.locator('#resume-text').textContent()).toBe(
    'Phone Lookup on Sheet1!A1:B601: 500 of 600 rows done, results in C1:J601.',
  );
  await page.getByRole('button', { name: 'Resume' }).focus();
  await page.keyboard.press('Enter');
  await poll(() => page.locator('#message').textContent()).toMatch(/^Done: 600 rows in C1:J601/);
  expect(await page.locator('#progress-text').textContent()).toBe(
    `600 of 600 rows · ${distinct} transactions spent · 0 no match · 12 invalid · 0 errors`,
  );

  mkdirSync(RESULTS, { recursive: true });
  const screenshot = join(RESULTS, 'sidebar-bulk-run.png');
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(`sidebar screenshot: ${screenshot}`);

  // The sheet holds the results; the run paid once per distinct phone, with the sidebar user's key.
  expect(rt.sandbox.transactions(COLLABORATOR_KEY)).toBe(distinct);
  expect(rt.sandbox.transactions(OWNER_KEY)).toBe(0);
  const record = referenceRecord('/v3/lookup/phone', { Phone: phone(0) });
  expect(rt.values('Sheet1', 'C1:D2')).toEqual([
    ['Status', 'FName'],
    ['ok', record.Name.FName],
  ]);
  expect(rt.values('Sheet1', 'D40')[0]?.[0]).not.toBe('old note');

  // No key in the page, and google.script.run never had more than 10 calls in flight.
  const text = await page.content();
  const inputs = await page.$$eval('input', (all) => all.map((i) => (i as HTMLInputElement).value).join(' '));
  expect(text.includes(COLLABORATOR_KEY) || inputs.includes(COLLABORATOR_KEY)).toBe(false);
  const gas = (await page.evaluate('window.__gasState')) as { maxInFlight: number; calls: string[] };
  expect(gas.maxInFlight).toBeLessThanOrEqual(10);
  expect(gas.calls).toContain('runChunk');
  await page.close();
});

test('formula answers not kept yet: counted, kept with one click (no transaction), then every formula frozen', async () => {
  const rt = newRuntime();
  const user = rt.owner;
  const page = await openSidebar(rt, user, NO_HOLD());
  await poll(() => page.locator('#answers-text').textContent()).toMatch(/^Every formula answer is kept/);
  // Folded: the summary says the state; opening it shows what each button does.
  expect(await page.locator('#answers-summary').textContent()).toBe('all kept');
  expect(await page.locator('#keep-answers').isVisible()).toBe(false);
  await page.locator('#answers-section > summary').click();
  expect(await page.getByRole('button', { name: 'Keep them in this spreadsheet' }).isDisabled()).toBe(true);

  // Formulas buy 3 answers while the sidebar is open; the user comes back to the sidebar.
  rt.type('Sheet1', 'A1:A3', [[Number(phone(1))], [Number(phone(2))], [Number(phone(3))]]);
  rt.type('Sheet1', 'B1', [['=PHONELOOKUP(A1:A3, "FName")']]);
  expect(rt.recalculate().errors).toEqual([]);
  await page.evaluate(() => window.dispatchEvent(new Event('focus')));
  await poll(() => page.locator('#answers-text').textContent()).toMatch(
    /^3 formula answers are not kept yet/,
  );
  expect(await page.locator('#answers-summary').textContent()).toBe('3 not kept yet');

  await page.getByRole('button', { name: 'Keep them in this spreadsheet' }).click();
  await poll(() => page.locator('#message').textContent()).toBe('Kept 3 answers; no transaction spent.');
  expect(await page.locator('#answers-text').textContent()).toMatch(/^Every formula answer is kept/);
  expect(rt.sandbox.transactions()).toBe(3);

  // Freeze results in the whole spreadsheet: two clicks, then the formula is its values.
  const shown = rt.values('Sheet1', 'B1:B3');
  await page.getByRole('button', { name: 'Turn every Enrich formula into values' }).click();
  await page.getByRole('button', { name: /^Click again/ }).click();
  await poll(() => page.locator('#message').textContent()).toBe('Froze 1 formula (3 cells)');
  expect(rt.sheet().formulaCells()).toEqual([]);
  expect(rt.values('Sheet1', 'B1:B3')).toEqual(shown);
  await page.close();
});

test('answers paid for but unreadable: the sidebar offers to ask again, stating the cost', async () => {
  const rt = newRuntime();
  const user = rt.owner;
  rt.sandbox.configure({ misbehave: ['html-200'] });
  rt.customFunction(user, 'PHONELOOKUP', [[Number(phone(1))], [Number(phone(2))]]);
  rt.sandbox.configure({ misbehave: [] });
  expect(rt.sandbox.transactions()).toBe(2);
  rt.type('Sheet1', 'A1:A4', [['Phone'], [phone(1)], [phone(2)], [phone(3)]]);
  rt.select('Sheet1', 'A1:A4');
  const page = await openSidebar(rt, user, NO_HOLD());
  await page.getByLabel('Operation', { exact: true }).selectOption('phone-lookup');
  await page.getByRole('button', { name: 'Check' }).click();
  await poll(() => page.locator('#plan').textContent()).toContain('at most 1 transactions');
  const box = page.getByLabel(/Ask again for the 2 answers paid for but unreadable/);
  await expect.poll(() => box.isVisible()).toBe(true);
  expect(await page.locator('#ask-again-text').textContent()).toBe(
    'Ask again for the 2 answers paid for but unreadable (up to 2 more transactions; they were paid once already)',
  );
  await box.check();
  await poll(() => page.locator('#plan').textContent()).toContain('at most 3 transactions');
  expect(await box.isChecked()).toBe(true);
  await page.getByRole('button', { name: 'Start' }).click();
  await poll(() => page.locator('#message').textContent()).toMatch(/^Done: 3 rows/);
  expect(rt.sandbox.transactions()).toBe(5);
  expect(rt.values('Sheet1', 'B2:B4').map((r) => String(r[0]))).toEqual(['ok', 'ok', 'ok']);
  await page.close();
});
