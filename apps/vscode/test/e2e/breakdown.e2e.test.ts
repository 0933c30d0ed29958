// What came back and what it cost, in code-server, against a sandbox the test starts: Enrich File
// with Email Verify on a small CSV of e-mail addresses opens the chart of the run beside the output
// (the match rate, then each Result value with its count, share and likely meaning, and a table of
// the same numbers), and every number in it equals what the output file holds. A screenshot of the
// chart is saved. The Spend view then shows the run's transactions for the sandbox's origin, a
// palette call adds its one, Show Spend opens the totals by month, and the ledger in the extension's
// global storage holds exactly what the sandbox counted, without an address or the key.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLedger } from '@enrich/core';
import { type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { okValueCounts } from '../csv-records';
import {
  activeEditorText,
  answerInput,
  type CodeServer,
  closeAll,
  dialog,
  enrichFromExplorer,
  filesContaining,
  lastWebview,
  listFiles,
  notification,
  openWorkbench,
  quickInput,
  runCommand,
  screenshot,
  screenshotIfFailed,
  setApiKey,
  startCodeServer,
} from './code-server';

const KEY = 'e2e-breakdown-key-R7XW4K9P2M';
// 40 addresses, 3 of them again as people retype them (the same request: a domain's case and spaces
// do not count), 2 that are not addresses.
const emails = Array.from({ length: 40 }, (_, i) => `lead.${i}@example.com`);
const rows = [
  ...emails,
  'lead.3@EXAMPLE.com',
  ' lead.7@example.com ',
  'lead.11@example.com',
  'not-an-email',
  'x@',
];
const CSV = `${['Name,Email', ...rows.map((email, i) => `Lead ${i},${email}`)].join('\n')}\n`;

let sandbox: SandboxServer;
let server: CodeServer;
let context: BrowserContext;
let page: Page;
let spentByRun = 0;

beforeAll(async () => {
  sandbox = await startSandboxServer({ keys: [KEY] });
  server = await startCodeServer({ 'enrich.baseUrl': sandbox.url, 'enrich.baseUrlV3': sandbox.url });
  writeFileSync(join(server.workspaceDir, 'emails.csv'), CSV);
  ({ context, page } = await openWorkbench(server));
});

afterEach((test) => screenshotIfFailed(page, test.task));

afterAll(() => closeAll(context, server, sandbox));

/** Whether any webview page shows `selector` with `text` (the result view and the chart are two). */
async function shown(selector: string, text: string): Promise<boolean> {
  for (const frame of page.frames()) {
    if (
      (await frame
        .locator(selector, { hasText: text })
        .count()
        .catch(() => 0)) > 0
    )
      return true;
  }
  return false;
}

/** The Spend view's pane, expanded. */
async function spendPane() {
  const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Spend This Month' }) });
  if (!(await pane.isVisible())) {
    await page.locator('.activitybar .action-item .action-label[aria-label^="Enrichment"]').click();
  }
  const header = pane.locator('.pane-header');
  await header.waitFor();
  if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
  return pane;
}

describe('the chart of an Enrich File run, and the spend, in code-server', () => {
  // Set-up, not a test: every test below needs the key.
  beforeAll(() => setApiKey(page, KEY));

  it('opens the chart beside the output after Email Verify; each number is what the output file holds', async () => {
    await enrichFromExplorer(page, 'emails.csv');
    await answerInput(page, 'which operation?', 'Email Verify');
    await quickInput(page).filter({ hasText: 'Email Verify: emails.csv' }).waitFor({ state: 'visible' });
    const cost = (await page.locator('.quick-input-list .monaco-list-row').first().textContent()) ?? '';
    expect(cost).toContain('Enrich: spend 40 transactions');
    await page.keyboard.press('Enter');
    const modal = dialog(page, 'spend 40 transactions');
    await modal.waitFor();
    await modal.locator('.monaco-button', { hasText: 'Enrich (40 transactions)' }).click();
    await page.locator('.tab', { hasText: 'emails.email-verify.csv' }).waitFor({ timeout: 60_000 });
    await notification(page, 'Enrich File: wrote emails.email-verify.csv').waitFor();
    spentByRun = sandbox.sandbox.transactions(KEY);
    expect(spentByRun).toBe(40);

    // The chart, the webview opened last.
    const view = lastWebview(page);
    await view.locator('h1', { hasText: 'Email Verify: emails.csv' }).waitFor();
    await page.locator('.tab', { hasText: 'Email Verify: emails.csv' }).waitFor();
    const output = readFileSync(join(server.workspaceDir, 'emails.email-verify.csv'), 'utf8');
    const counts = okValueCounts(output, 'Result');
    const okRows = [...counts.values()].reduce((a, b) => a + b, 0);
    expect(okRows).toBe(43);
    expect(counts.size).toBeGreaterThan(1);

    // The chart: each value's label, count, share and words, and a bar as wide as its share.
    const chart = await view.locator('.chart .row').evaluateAll((nodes) =>
      nodes.map((row) => {
        const text = (selector: string) => row.querySelector(selector)?.textContent ?? '';
        const bar = row.querySelector('.bar')?.getBoundingClientRect().width ?? 0;
        const track = row.querySelector('.track')?.getBoundingClientRect().width ?? 1;
        return {
          label: text('.label'),
          count: text('.n'),
          share: text('.pct'),
          note: text('.note'),
          width: bar / track,
        };
      }),
    );
    console.log(`chart: ${chart.map((r) => `${r.label} ${r.count} ${r.share} ${r.note}`).join(' | ')}`);
    expect(new Map(chart.map((r) => [r.label, Number(r.count)]))).toEqual(counts);
    for (const row of chart) {
      const share = Number(row.count) / okRows;
      expect(row.share).toBe(`${Math.round(share * 100)}%`);
      expect(row.width).toBeCloseTo(share, 1);
      expect(row.note).toMatch(/^likely: \S/);
    }
    // The table beside it holds the same numbers, for screen readers; the bars are hidden from them.
    const table = await view
      .locator('section.field table.data tbody tr')
      .evaluateAll((nodes) => nodes.map((tr) => Array.from(tr.children, (cell) => cell.textContent ?? '')));
    expect(table).toEqual(chart.map((r) => [r.label, r.count, r.share, r.note]));
    await expect(view.locator('.chart').getAttribute('aria-hidden')).resolves.toBe('true');
    // The match rate: the output's ok and invalid rows.
    const outcomes = await view
      .locator('table.outcomes tbody tr')
      .evaluateAll((nodes) => nodes.map((tr) => Array.from(tr.children, (cell) => cell.textContent ?? '')));
    expect(outcomes).toEqual([
      ['ok', '43', '96%'],
      ['invalid', '2', '4%'],
    ]);

    // The picture: the run's progress gone, and no notification over the chart.
    await notification(page, 'Email Verify: emails.csv').waitFor({ state: 'hidden' });
    await runCommand(page, 'Notifications: Clear All Notifications');
    await notification(page, 'Enrich File: wrote').waitFor({ state: 'hidden' });
    const path = await screenshot(page, 'breakdown-chart');
    console.log(`screenshot of the chart: ${path}`);
  });

  it("shows the run's transactions in the Spend view, and a palette call's one", async () => {
    const origin = new URL(sandbox.url).origin;
    const pane = await spendPane();
    const row = (label: string) => pane.locator('.monaco-list-row', { hasText: label });
    await expect.poll(() => row(origin).textContent()).toContain('40 transactions');
    await expect(row('Email Verify').textContent()).resolves.toMatch(/Email Verify\s*40$/);

    await runCommand(page, 'Enrichment: Email Verify');
    await answerInput(page, 'Email Verify', 'someone.new@example.com');
    await expect.poll(() => sandbox.sandbox.transactions(KEY), { timeout: 30_000 }).toBe(41);
    // Its result view, drawn (the picture below shows it beside the chart).
    await expect
      .poll(() => shown('h1', 'Email Verify: someone.new@example.com'), { timeout: 30_000 })
      .toBe(true);
    await expect.poll(() => row(origin).textContent()).toContain('41 transactions');
    await expect(row('Email Verify').textContent()).resolves.toMatch(/Email Verify\s*41$/);
    await screenshot(page, 'spend-view');
  });

  it('opens the totals by month with Show Spend', async () => {
    await runCommand(page, 'Enrichment: Show Spend');
    await page.locator('.tab', { hasText: 'Enrichment spend by month.md' }).waitFor();
    // The editor wraps long lines in a narrow group: read the text with its spaces joined.
    const text = (await activeEditorText(page)).replace(/\s+/g, ' ');
    const month = new Date().toISOString().slice(0, 7);
    const origin = new URL(sandbox.url).origin;
    expect(text).toContain(`## ${month}`);
    expect(text).toMatch(new RegExp(`\\| ${origin.replace(/[.]/g, '\\.')} \\| Email Verify \\| 41 \\|`));
    await screenshot(page, 'spend-by-month');
  });

  it('keeps in the ledger exactly what the sandbox counted, and no address or key anywhere in it', async () => {
    await context.close();
    await server.close();
    const ledgers = listFiles(server.userDataDir).filter((file) => file.endsWith('ledger.jsonl'));
    expect(ledgers).toHaveLength(1);
    const text = readFileSync(ledgers[0] ?? '', 'utf8');
    const { entries, skipped } = readLedger(text);
    expect(skipped).toBe(0);
    expect(entries.reduce((n, e) => n + e.count, 0)).toBe(sandbox.sandbox.transactions(KEY));
    expect(entries.filter((e) => e.file === 'emails.csv').reduce((n, e) => n + e.count, 0)).toBe(spentByRun);
    expect(entries.every((e) => e.client === 'vscode' && e.origin === new URL(sandbox.url).origin)).toBe(
      true,
    );
    expect(text).not.toMatch(/@|example\.com/);
    expect(filesContaining(server.root, KEY)).toEqual([]);
  });
});
