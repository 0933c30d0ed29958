// Enrich File in code-server on a CSV, from the explorer's context menu, on a 500-row file
// (duplicates, blank rows, invalid phones) against a sandbox the test starts, which counts what it
// is paid for: the cost shown before confirming equals what is spent; Cancel mid-run, reload the
// window, run again: nothing is bought twice, the sandbox counted exactly the distinct valid
// requests, and the output equals the CLI's for the same input, byte for byte. The run paces itself
// (enrich.concurrency auto, capped by enrich.maxConcurrency from settings.json) and says so in
// core's words.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { PACE_CHANGES } from '@enrich/core';
import { type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  APP_DIR,
  answerInput,
  type CodeServer,
  closeAll,
  dialog,
  enrichFromExplorer,
  filesContaining,
  listFiles,
  notification,
  openWorkbench,
  quickInput,
  screenshot,
  screenshotIfFailed,
  setApiKey,
  startCodeServer,
} from './code-server';
import { makeLeads } from './leads-500';

const KEY = 'e2e-csv-key-H4VN8C2R7T';
const leads = makeLeads();

let sandbox: SandboxServer;
let server: CodeServer;
let context: BrowserContext;
let page: Page;
let inPath: string;
let shownFirst = 0;
let spentBeforeResume = 0;

beforeAll(async () => {
  // Slow enough that Cancel lands mid-run: 150 ms an answer, and the pace found by itself (auto, the
  // default) capped at 8 at a time by a setting the packaged extension reads from settings.json.
  sandbox = await startSandboxServer({ keys: [KEY], latencyMs: 150 });
  server = await startCodeServer({
    'enrich.baseUrl': sandbox.url,
    'enrich.baseUrlV3': sandbox.url,
    'enrich.maxConcurrency': 8,
  });
  inPath = join(server.workspaceDir, 'leads.csv');
  writeFileSync(inPath, leads.csv);
  ({ context, page } = await openWorkbench(server));
});

afterEach((test) => screenshotIfFailed(page, test.task));

afterAll(() => closeAll(context, server, sandbox));

/** Picks the operation (or the resume row), then reads the cost row of the mapping step and takes it. */
async function chooseAndReadCost(choice: string): Promise<number> {
  await answerInput(page, 'which operation?', choice);
  await quickInput(page).filter({ hasText: 'Phone Lookup: leads.csv' }).waitFor({ state: 'visible' });
  const first = page.locator('.quick-input-list .monaco-list-row').first();
  const label = (await first.textContent()) ?? '';
  const shown = Number(/Enrich: spend (\d+) transactions?/.exec(label)?.[1]);
  expect(label).toContain(`${leads.rows} rows`);
  await screenshot(page, choice.startsWith('Resume') ? 'csv-3-resume-cost' : 'csv-1-mapping-and-cost');
  await page.keyboard.press('Enter');
  return shown;
}

async function confirm(transactions: number): Promise<void> {
  const modal = dialog(page, `spend ${transactions} transaction`);
  await modal.waitFor();
  await modal.locator('.monaco-button', { hasText: `Enrich (${transactions} transaction` }).click();
}

describe('Enrich File on a CSV in code-server', () => {
  // Set-up, not a test: every test below needs the key.
  beforeAll(() => setApiKey(page, KEY));

  it('shows the cost before anything is sent: the distinct valid requests', async () => {
    // Set API Key's free key check asked once (not billed); the review asks nothing more.
    const requests = sandbox.sandbox.requests();
    await enrichFromExplorer(page, 'leads.csv');
    shownFirst = await chooseAndReadCost('Phone Lookup');
    console.log(`500-row file: ${leads.distinctValid} distinct valid requests; cost shown ${shownFirst}`);
    expect(shownFirst).toBe(leads.distinctValid);
    expect(sandbox.sandbox.requests()).toBe(requests);
    expect(sandbox.sandbox.transactions(KEY)).toBe(0);
  });

  it('runs with a progress notification, and Cancel stops it mid-run', async () => {
    await confirm(shownFirst);
    const toast = notification(page, 'Phone Lookup: leads.csv');
    await toast.waitFor();
    await expect.poll(() => sandbox.sandbox.transactions(KEY), { timeout: 60_000 }).toBeGreaterThan(40);
    await screenshot(page, 'csv-2-progress');
    // The progress keeps its rows and transactions, and tells the pace and why it last changed.
    const progress = (await toast.locator('.notification-list-item-message').textContent()) ?? '';
    expect(progress).toMatch(/\d+ of about \d+ rows, \d+ transactions? spent; pace [\d.]+\/s, \d+ in flight/);
    expect(Object.values(PACE_CHANGES).some((words) => progress.includes(`(${words})`))).toBe(true);
    await toast.locator('.monaco-button', { hasText: 'Cancel' }).click();
    await notification(page, 'Enrich File stopped').waitFor({ timeout: 30_000 });
    // Requests in flight answer within their grace; then nothing more arrives.
    await new Promise((r) => setTimeout(r, 1500));
    spentBeforeResume = sandbox.sandbox.transactions(KEY);
    console.log(`cancelled after ${spentBeforeResume} transactions`);
    expect(spentBeforeResume).toBeLessThan(leads.distinctValid);
  });

  it('after a window reload, resumes: the cost is what is left, and the run spends exactly that', async () => {
    await page.reload();
    await page.locator('.monaco-workbench').waitFor();
    await page.locator('.explorer-folders-view').waitFor();
    // The extension's contributions are registered once its view container shows in the activity bar.
    await page.locator('.activitybar .action-item .action-label[aria-label^="Enrichment"]').waitFor();
    await enrichFromExplorer(page, 'leads.csv');
    const shownAgain = await chooseAndReadCost('Resume');
    expect(shownAgain).toBe(leads.distinctValid - spentBeforeResume);
    await confirm(shownAgain);
    await page.locator('.tab', { hasText: 'leads.phone-lookup.csv' }).waitFor({ timeout: 120_000 });
    const done = notification(page, 'Enrich File: wrote leads.phone-lookup.csv');
    await done.waitFor();
    await screenshot(page, 'csv-4-result');
    // The pace reached, found by itself within enrich.maxConcurrency (no 429 from this sandbox).
    const closing = (await done.locator('.notification-list-item-message').textContent()) ?? '';
    console.log(closing);
    expect(closing).toMatch(/Pace: [\d.]+ answers\/s; found by itself: up to [1-8] at a time/);
    expect(closing).not.toContain('429 answers');
    // The cost shown first is what the two runs spent together: each distinct valid request once.
    expect(sandbox.sandbox.transactions(KEY)).toBe(leads.distinctValid);
    expect(sandbox.sandbox.transactions(KEY)).toBe(shownFirst);
  });

  it('writes the same file as the CLI for the same input, byte for byte', async () => {
    const cliDir = join(server.root, 'cli');
    mkdirSync(cliDir);
    copyFileSync(inPath, join(cliDir, 'leads.csv'));
    const cli = resolve(APP_DIR, '../../packages/cli');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/bin.ts',
        'phone-lookup',
        '--in',
        join(cliDir, 'leads.csv'),
        '--base-url',
        sandbox.url,
        '--base-url-v3',
        sandbox.url,
      ],
      // The CLI's spend ledger goes beside its output, not into the home folder.
      {
        cwd: cli,
        env: { ...process.env, ENRICH_API_KEY: KEY, ENRICH_LEDGER: join(cliDir, 'ledger.jsonl') },
        timeout: 120_000,
      },
    );
    console.log(stdout.trim());
    const fromCli = readFileSync(join(cliDir, 'leads.phone-lookup.csv'));
    const fromExtension = readFileSync(join(server.workspaceDir, 'leads.phone-lookup.csv'));
    expect(fromExtension.length).toBeGreaterThan(10_000);
    expect(fromExtension.equals(fromCli)).toBe(true);
    // Beside the input, only the output and the answer journal remain: no lock, no partial file.
    expect(readdirSync(server.workspaceDir).sort()).toEqual([
      '.enrich-cache.jsonl',
      'leads.csv',
      'leads.phone-lookup.csv',
    ]);
  });

  it('leaves the key in no file: the output, the journal, settings, browser storage, logs', async () => {
    await context.close();
    await server.close();
    const scanned = listFiles(server.root);
    expect(scanned).toContain(join(server.workspaceDir, '.enrich-cache.jsonl'));
    expect(filesContaining(server.root, KEY)).toEqual([]);
  });
});
