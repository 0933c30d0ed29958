// Issue 24, must show 3: the built sidebar in real headless Chromium, after an Email Verify run of
// 300 rows driven by clicks: the match rate and the bars of the Result column, each value's count
// as the written cells hold it and its percentage in core's words, the likely meanings marked
// "likely", the bars hidden from screen readers and the lists named by their headings, a value
// with markup shown as text, and this month's spend. Screenshot: test-results/sidebar-breakdown.png.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { percentText } from '@enrich/core/universal';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newRuntime, OWNER_KEY } from './helpers.js';
import type { Runtime } from './runtime/index.js';
import { launchChromium, NO_HOLD, openSidebar, poll, RESULTS } from './sidebar-page.js';

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

const HOSTILE = '<img src=x onerror="window.__xss=1">';

/** The service answers one address with a Result no description has, written as markup. */
function answerOneHostile(rt: Runtime, email: string): void {
  const handle = rt.sandbox.handle.bind(rt.sandbox);
  rt.sandbox.handle = (request) => {
    const answer = handle(request);
    if (answer.status !== 200 || !request.body?.includes(email)) return answer;
    return { ...answer, body: JSON.stringify({ Email: email, Result: HOSTILE }) };
  };
}

test('when a run ends, the sidebar shows the match rate and the bars of what came back', async () => {
  const rt = newRuntime({ latencyMs: 100 });
  const user = rt.owner;
  // 300 rows: repeated addresses, invalid and empty rows, and an address with no match.
  const rows = Array.from({ length: 300 }, (_, i) => {
    if (i % 50 === 11) return [`Lead ${i}`, 'not-an-email'];
    if (i % 75 === 20) return [`Lead ${i}`, ''];
    if (i % 100 === 42) return [`Lead ${i}`, 'nomatch@example.com'];
    return [`Lead ${i}`, `lead${i % 240}@example.com`];
  });
  answerOneHostile(rt, 'lead7@example.com');
  rt.type('Sheet1', 'A1:B1', [['Name', 'Email']]);
  rt.type('Sheet1', 'A2:B301', rows);
  rt.select('Sheet1', 'A1:B301');
  const page = await openSidebar(browser, rt, user, NO_HOLD());
  await poll(() => page.locator('#spend-text').textContent()).toBe('November 2026: 0 transactions.');

  await page.getByLabel('Operation', { exact: true }).selectOption('email-verify');
  await page.getByRole('button', { name: 'Check' }).click();
  await poll(() => page.locator('#plan').textContent()).toContain('300 rows');
  expect(await page.locator('#breakdown-section').isVisible()).toBe(false);
  await page.getByRole('button', { name: 'Start' }).click();
  await poll(() => page.locator('#message').textContent()).toMatch(/^Done: 300 rows in C1:D301/);
  await poll(() => page.locator('#breakdown-section').isVisible()).toBe(true);

  // What the sheet holds, read independently of the add-on.
  const out = rt.values('Sheet1', 'C2:D301');
  const okRows = out.filter((r) => String(r[0]).startsWith('ok'));
  const inSheet = new Map<string, number>();
  for (const r of okRows) inSheet.set(String(r[1]), (inSheet.get(String(r[1])) ?? 0) + 1);
  const paid = rt.sandbox.transactions(OWNER_KEY);
  const of = (text: string) => rows.filter((r) => r[1] === text).length;
  const [invalid, empty, noMatch] = [of('not-an-email'), of(''), of('nomatch@example.com')];
  const withInput = 300 - empty;
  expect(paid).toBe(new Set(rows.map((r) => r[1]).filter((e) => e?.includes('@'))).size);
  expect([invalid, empty, noMatch]).toEqual([6, 4, 3]);

  // The match rate: ok, no match, invalid, each with its count and share of the rows with input.
  const rate = page.getByRole('list', { name: /^Match rate/ });
  expect(await page.locator('#bars-outcomes').textContent()).toBe(
    `Match rate: ${percentText(okRows.length / withInput)} ok`,
  );
  expect(okRows.length).toBe(withInput - invalid - noMatch);
  expect(await rate.getByRole('listitem').allTextContents()).toEqual([
    `ok ${okRows.length} (${percentText(okRows.length / withInput)})`,
    `no match ${noMatch} (${percentText(noMatch / withInput)})`,
    `invalid ${invalid} (${percentText(invalid / withInput)})`,
  ]);

  // The Result bars: one item per value, its count exactly the cells holding it, largest first.
  const items = page.getByRole('list', { name: 'Result' }).getByRole('listitem');
  const shown = await items.evaluateAll((all) =>
    all.map((li) => ({
      label: li.querySelector('.bar-label')?.textContent ?? '',
      count: (li.querySelector('.bar-count')?.textContent ?? '').trim(),
      note: (li.querySelector('.bar-note')?.textContent ?? '').trim(),
      bar: (li.querySelector('.bar-fill') as HTMLElement | null)?.getBoundingClientRect().width ?? 0,
      hidden: li.querySelector('.bar-track')?.getAttribute('aria-hidden'),
    })),
  );
  expect(new Map(shown.map((s) => [s.label, Number(s.count.split(' ')[0])]))).toEqual(inSheet);
  for (const s of shown) {
    const count = inSheet.get(s.label) as number;
    expect(s.count).toBe(`${count} (${percentText(count / okRows.length)})`);
    expect(s.hidden).toBe('true');
    expect(s.bar).toBeGreaterThan(0);
  }
  const counts = shown.map((s) => Number(s.count.split(' ')[0]));
  expect(counts).toEqual([...counts].sort((a, b) => b - a));
  // Bars in proportion: the first (largest) is the widest.
  expect(shown[0]?.bar).toBeGreaterThan(shown.at(-1)?.bar as number);
  const note = (label: string) => shown.find((s) => s.label === label)?.note;
  expect(note('VERIFIED')).toBe('likely: the mailbox exists');
  expect(note('UNDELIVERABLE')).toBe('likely: mail to it would bounce');
  // Markup from the service is text: shown as it is, never an element.
  expect(note(HOSTILE)).toBe('not a known code');
  expect(await page.locator('#breakdown img').count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();

  // A screen reader reads each set as a list named by its heading, each item in words.
  const tree = await page.locator('#breakdown').ariaSnapshot();
  const verified = inSheet.get('VERIFIED') as number;
  expect(tree).toContain('- list "Result":');
  expect(tree).toContain(
    `- listitem: "VERIFIED ${verified} (${percentText(verified / okRows.length)}) likely: the mailbox exists"`,
  );

  // This month's spend in this spreadsheet: exactly what the service counted.
  expect(await page.locator('#spend-text').textContent()).toBe(
    `November 2026: ${paid} transactions (Email Verify ${paid}).`,
  );

  mkdirSync(RESULTS, { recursive: true });
  const screenshot = join(RESULTS, 'sidebar-breakdown.png');
  await page.locator('#progress-section').scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(`sidebar breakdown screenshot: ${screenshot}`);
  console.log(`the accessible tree of the bars:\n${tree}`);
  await page.close();
});
