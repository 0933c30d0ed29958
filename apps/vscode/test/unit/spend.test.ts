// The extension's own spend ledger, against a real sandbox over HTTP: every paid call (palette, chat
// tool) is a line of its own and every Enrich File run's paid answers are counted, with the service's
// origin and no personal data; what is not paid (a refused input, a 401, an answer shown again from
// the History) is not recorded. The Spend view shows this month per service and operation; Show
// Spend opens every month; a ledger that cannot be written never stops a call.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BulkSummary } from '@enrich/bulk';
import { type LedgerEntry, ledgerLine, readLedger } from '@enrich/core';
import { afterEach, describe, expect, it } from 'vitest';
import type * as vscode from 'vscode';
import { SHOW_EARLIER } from '../../src/call/reuse';
import { activate, deactivate } from '../../src/extension';
import type { HistoryEntry } from '../../src/history';
import { COMMAND, operationCommandIdOf, SPEND_VIEW } from '../../src/manifest';
import { spendMarkdown } from '../../src/spend/document';
import { LEDGER_FILE } from '../../src/spend/ledger';
import { monthOf, spendByMonth } from '../../src/spend/model';
import type { SpendNode, SpendTree } from '../../src/tree/spend';
import {
  commands,
  createExtensionContext,
  type LanguageModelTextPart,
  lm,
  reply,
  resetStub,
  Uri,
  ui,
} from '../vscode-stub';
import { activateWithSandbox, closeHarnesses, type Harness, TEST_KEY, tempDir } from './harness';

let harness: Harness | undefined;
afterEach(closeHarnesses);

const ledgerPath = (h: { context: { globalStorageUri: Uri } }) =>
  join(h.context.globalStorageUri.fsPath, LEDGER_FILE);
const ledgerText = (h: { context: { globalStorageUri: Uri } }) => {
  try {
    return readFileSync(ledgerPath(h), 'utf8');
  } catch {
    return '';
  }
};
const ledger = (h: { context: { globalStorageUri: Uri } }) => readLedger(ledgerText(h)).entries;
const call = (id: 'phone-lookup' | 'email-verify', input: Record<string, string>) =>
  commands.executeCommand<HistoryEntry | undefined>(operationCommandIdOf(id), input);
const originOf = (url: string) => new URL(url).origin;
const sum = (entries: readonly LedgerEntry[]) => entries.reduce((n, e) => n + e.count, 0);

/** The Spend view's rows: each origin with its description, then its operations. */
function spendView(): [string, string][] {
  const tree = ui.trees.get(SPEND_VIEW) as SpendTree;
  const rows: [string, string][] = [];
  const walk = (nodes: SpendNode[]) => {
    for (const node of nodes) {
      const item = tree.getTreeItem(node);
      rows.push([String(item.label), String(item.description)]);
      walk(tree.getChildren(node));
    }
  };
  walk(tree.getChildren());
  return rows;
}

describe('the spend ledger of single calls', () => {
  it('records each paid call as a line of its own, with its origin and no input', async () => {
    harness = await activateWithSandbox();
    const record = await call('phone-lookup', { Phone: '5550102030' });
    const noMatch = await call('phone-lookup', { Phone: '5550000204' });
    expect(record?.outcome.kind).toBe('record');
    expect(noMatch?.outcome.kind).toBe('no-match');
    const origin = originOf(harness.server.url);
    expect(ledger(harness)).toEqual([
      expect.objectContaining({
        v: 1,
        operation: 'phone-lookup',
        origin,
        client: 'vscode',
        run: record?.id,
        count: 1,
      }),
      expect.objectContaining({
        v: 1,
        operation: 'phone-lookup',
        origin,
        client: 'vscode',
        run: noMatch?.id,
        count: 1,
      }),
    ]);
    expect(ledger(harness).every((e) => e.file === undefined)).toBe(true);
    expect(sum(ledger(harness))).toBe(harness.server.sandbox.transactions(TEST_KEY));
    const text = ledgerText(harness);
    for (const secret of ['5550102030', '5550000204', TEST_KEY]) expect(text).not.toContain(secret);
  });

  it('records nothing that was not paid: a refused input, a 401, an answer shown again from the History', async () => {
    harness = await activateWithSandbox();
    await call('phone-lookup', { Phone: '5550102030' });
    expect(ledger(harness)).toHaveLength(1);
    expect(await call('phone-lookup', { Phone: '555' })).toBeUndefined();
    ui.answer = (m) => (m.actions.includes(SHOW_EARLIER) ? SHOW_EARLIER : undefined);
    expect((await call('phone-lookup', { Phone: '5550102030' }))?.id).toBe(ledger(harness)[0]?.run);
    await harness.context.secrets.store('enrich.apiKey', 'not-the-sandbox-key');
    const refused = await call('phone-lookup', { Phone: '5550102039' });
    expect(refused?.outcome).toMatchObject({ kind: 'error', error: { status: 401 } });
    expect(ledger(harness)).toHaveLength(1);
    expect(harness.server.sandbox.transactions(TEST_KEY)).toBe(1);
  });

  it('records a chat tool call as the palette does', async () => {
    harness = await activateWithSandbox();
    // As VS Code calls a tool: its confirmation first, then the call.
    const result = (await lm.invokeTool('enrich_email_verify', {
      input: { Email: 'jane.doe@example.com' },
      toolInvocationToken: undefined,
    })) as { content: LanguageModelTextPart[] };
    expect(result.content[0]?.value).toContain('spent 1 transaction');
    expect(ledger(harness)).toEqual([expect.objectContaining({ operation: 'email-verify', count: 1 })]);
    expect(ledgerText(harness)).not.toContain('jane.doe');
  });

  it('gives the session sandbox of Try Without a Key its own origin, whatever its port', async () => {
    resetStub();
    const context = createExtensionContext();
    try {
      await activate(context as unknown as vscode.ExtensionContext);
      await commands.executeCommand(COMMAND.tryWithoutKey);
      await call('phone-lookup', { Phone: '5550102030' });
      expect(ledger({ context }).map((e) => e.origin)).toEqual(['http://127.0.0.1']);
    } finally {
      await deactivate();
      for (const d of context.subscriptions) d.dispose();
    }
  });

  it('never stops a call when the ledger cannot be written; says so once', async () => {
    harness = await activateWithSandbox();
    // A folder where the file should be: every append fails.
    mkdirSync(ledgerPath(harness), { recursive: true });
    const first = await call('phone-lookup', { Phone: '5550102030' });
    const second = await call('phone-lookup', { Phone: '5550102031' });
    expect([first?.outcome.kind, second?.outcome.kind]).toEqual(['record', 'record']);
    const warnings = ui.messages.filter((m) => m.text.includes('spend ledger'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.text).toMatch(
      /^Enrichment could not use its spend ledger \(.+\)\. Calls and runs go on/,
    );
    expect(ui.output.filter((line) => line.includes('Spend ledger')).length).toBe(2);
    rmSync(ledgerPath(harness), { recursive: true });
  });
});

describe('the spend ledger of Enrich File', () => {
  it("records a run's paid answers, a stopped run's too, with the file's base name only", async () => {
    harness = await activateWithSandbox();
    harness.server.sandbox.configure({ latencyMs: 150 });
    const dir = tempDir('enrich-spend-');
    const path = join(dir, 'leads.csv');
    const phones = Array.from({ length: 60 }, (_, i) => `55501040${String(i).padStart(2, '0')}`);
    writeFileSync(path, `${['Phone', ...phones, ...phones].join('\n')}\n`);
    ui.answer = (m) => (m.modal ? m.actions[0] : undefined);
    ui.onProgress = (record) => setTimeout(() => record.source.cancel(), 200);
    reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 60 transactions' });
    const stopped = await commands.executeCommand<BulkSummary>(COMMAND.enrichCsv, Uri.file(path));
    expect(stopped.completed).toBe(false);
    expect(sum(ledger(harness))).toBe(stopped.transactions);
    expect(stopped.transactions).toBeGreaterThan(0);
    expect(stopped.transactions).toBeLessThan(60);

    ui.onProgress = () => {};
    reply({ pick: '$(debug-continue) Resume Phone Lookup' }, { accept: true });
    const resumed = await commands.executeCommand<BulkSummary>(COMMAND.enrichCsv, Uri.file(path));
    expect(resumed.completed).toBe(true);
    const entries = ledger(harness);
    expect(sum(entries)).toBe(60);
    expect(sum(entries)).toBe(harness.server.sandbox.transactions(TEST_KEY));
    // Two runs, each its own id; a few batched lines, not a line per answer.
    expect(new Set(entries.map((e) => e.run)).size).toBe(2);
    expect(entries.length).toBeLessThan(10);
    for (const e of entries) {
      expect(e).toMatchObject({
        operation: 'phone-lookup',
        origin: originOf(harness.server.url),
        client: 'vscode',
      });
      expect(e.file).toBe('leads.csv');
    }
    expect(ledgerText(harness)).not.toContain(dir);
    expect(ledgerText(harness)).not.toContain('5550104');
  });
});

describe('the Spend view and Show Spend', () => {
  it('shows this month per service and operation, and follows the ledger', async () => {
    harness = await activateWithSandbox();
    const tree = ui.trees.get(SPEND_VIEW) as SpendTree;
    let refreshes = 0;
    tree.onDidChangeTreeData(() => refreshes++);
    expect(spendView()).toEqual([]);
    await call('phone-lookup', { Phone: '5550102030' });
    await call('phone-lookup', { Phone: '5550102031' });
    await call('email-verify', { Email: 'jane.doe@example.com' });
    expect(refreshes).toBe(3);
    // An earlier month's spend is not this month's.
    appendLine(harness, { at: '2020-01-15T10:00:00.000Z', origin: 'https://api.tdg1.io', count: 500 });
    const origin = originOf(harness.server.url);
    expect(spendView()).toEqual([
      [origin, '3 transactions'],
      ['Phone Lookup', '2'],
      ['Email Verify', '1'],
    ]);
    const root = tree.getChildren()[0];
    expect(root && String(tree.getTreeItem(root).tooltip)).toContain(`in ${monthOf(new Date())} (UTC months`);
  });

  it('opens every month, newest first, per service; unreadable lines are said', async () => {
    harness = await activateWithSandbox();
    await call('phone-lookup', { Phone: '5550102030' });
    appendLine(harness, { at: '2026-10-31T23:59:59.000Z', origin: 'https://api.tdg1.io', count: 1200 });
    appendLine(harness, {
      at: '2026-10-01T00:00:00.000Z',
      origin: 'https://api.tdg1.io',
      count: 34,
      operation: 'email-verify',
    });
    appendLine(harness, { at: '2026-10-02T00:00:00.000Z', origin: 'https://testapi.tdg1.io', count: 7 });
    writeFileSync(ledgerPath(harness), `${ledgerText(harness)}{"v":1,"at":"torn`);
    await commands.executeCommand(COMMAND.showSpend);
    const shown = ui.documents.at(-1);
    expect(shown?.uri.toString()).toBe('enrich-spend:/Enrichment spend by month.md');
    const text = shown?.text ?? '';
    const month = monthOf(new Date());
    expect(text.indexOf(`## ${month}`)).toBeLessThan(text.indexOf('## 2026-10'));
    const service = (t: string) => t.padEnd('https://testapi.tdg1.io'.length);
    expect(text).toContain(
      [
        '## 2026-10',
        '',
        `| ${service('Service')} | Operation      | Transactions |`,
        `| ${'-'.repeat(23)} | -------------- | -----------: |`,
        `| ${service('https://api.tdg1.io')} | Phone Lookup   |        1,200 |`,
        `| ${service('https://api.tdg1.io')} | Email Verify   |           34 |`,
        `| ${service('https://api.tdg1.io')} | all operations |        1,234 |`,
        '| https://testapi.tdg1.io | Phone Lookup   |            7 |',
      ].join('\n'),
    );
    expect(text).toContain(`| ${originOf(harness.server.url)}`);
    expect(text).toContain(`Ledger: \`${ledgerPath(harness)}\` (1 line could not be read and was skipped).`);
  });

  it('says when nothing was recorded', () => {
    expect(spendMarkdown(spendByMonth([]), '/tmp/ledger.jsonl', 0)).toContain(
      'No paid transaction recorded yet.',
    );
  });
});

/** A line another session of the extension (or an earlier month) wrote. */
function appendLine(
  h: { context: { globalStorageUri: Uri } },
  line: { at: string; origin: string; count: number; operation?: LedgerEntry['operation'] },
): void {
  const entry: LedgerEntry = {
    v: 1,
    client: 'vscode',
    run: 'earlier-run',
    operation: line.operation ?? 'phone-lookup',
    at: line.at,
    origin: line.origin,
    count: line.count,
  };
  writeFileSync(ledgerPath(h), `${ledgerText(h)}${ledgerLine(entry)}`);
}
