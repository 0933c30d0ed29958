// Enrich File in code-server on the kinds of file besides CSV, from the explorer's context menu,
// against a sandbox the test starts: JSON Lines (the review and the confirmation say what was found,
// the cost shown is what is spent, the output opens as text beside the input with every line kept
// whole and the answer after its own keys) and an Excel workbook of two sheets (the sheet asked for,
// the output a workbook whose cells keep their values and types, selected in the Explorer since VS
// Code shows no workbook).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getOperation, mapColumns, requestKey, rowInput, validate } from '@enrich/core';
import { type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cellsOf, ExcelJS } from '../exceljs';
import {
  answerInput,
  type CodeServer,
  closeAll,
  dialog,
  enrichFromExplorer,
  filesContaining,
  notification,
  openWorkbench,
  quickInput,
  screenshot,
  screenshotIfFailed,
  setApiKey,
  startCodeServer,
} from './code-server';

const KEY = 'e2e-kinds-key-Q8ZK2M5W3D';
const op = getOperation('phone-lookup');

// 40 people, 12 rows repeating a phone in another format, 4 blank lines, 4 invalid phones.
const FORMATS = [
  (p: string) => p,
  (p: string) => `(${p.slice(0, 3)}) ${p.slice(3, 6)}-${p.slice(6)}`,
  (p: string) => `${p.slice(0, 3)}.${p.slice(3, 6)}.${p.slice(6)}`,
];
const people = Array.from({ length: 40 }, (_, i) => ({
  name: `Lead ${i}`,
  phone: `5552${String(200_000 + i * 13)}`,
}));
const rows: { name: string; phone: string }[] = [
  ...people,
  ...Array.from({ length: 12 }, (_, i) => {
    const person = people[(i * 7) % people.length] ?? { name: '', phone: '' };
    return { name: person.name, phone: FORMATS[1 + (i % 2)]?.(person.phone) ?? '' };
  }),
  ...['555-0102', '55501020301', 'n/a', '555 010 203x'].map((phone, i) => ({ name: `Bad ${i}`, phone })),
];
// Worked out apart from the engine: core's validation and request key over the rows as written.
const distinctValid = new Set(
  rows.flatMap(({ name, phone }) => {
    const checked = validate(op, rowInput(mapColumns(op, ['name', 'phone']), [name, phone]));
    return checked.ok ? [requestKey(op, checked.input)] : [];
  }),
).size;
// JSON Lines as people write them: their own key order and spacing, numbers, arrays, nested objects.
const jsonLines = rows.map(
  ({ name, phone }, i) =>
    `{"id": ${i + 1}, "name": ${JSON.stringify(name)}, "phone": ${JSON.stringify(phone)}, "score": ${(i % 9) + 0.5}0, "tags": ["lead"], "owner": {"team": "east"}}`,
);
// Four blank lines spread through the file: blank rows.
const jsonl = `${[...jsonLines.slice(0, 10), '', ...jsonLines.slice(10, 30), '', '', ...jsonLines.slice(30), ''].join('\n')}\n`;

let sandbox: SandboxServer;
let server: CodeServer;
let context: BrowserContext;
let page: Page;
let spentBefore = 0;

beforeAll(async () => {
  sandbox = await startSandboxServer({ keys: [KEY] });
  server = await startCodeServer({ 'enrich.baseUrl': sandbox.url, 'enrich.baseUrlV3': sandbox.url });
  writeFileSync(join(server.workspaceDir, 'leads.jsonl'), jsonl);
  await writeWorkbook(join(server.workspaceDir, 'leads.xlsx'));
  ({ context, page } = await openWorkbench(server));
});

afterEach((test) => screenshotIfFailed(page, test.task));

afterAll(() => closeAll(context, server, sandbox));

/** A notes sheet first, then the leads: phones typed as numbers (as Excel keeps them), a date, a formula. */
async function writeWorkbook(path: string): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  workbook.addWorksheet('Notes').addRow(['The leads are on the next sheet']);
  const leads = workbook.addWorksheet('Leads');
  leads.addRow(['Name', 'Phone', 'Since', 'Twice']);
  rows.slice(0, 20).forEach(({ name, phone }, i) => {
    const row = leads.addRow([
      name,
      /^\d{10}$/.test(phone) ? Number(phone) : phone,
      new Date(Date.UTC(2020, i % 12, 1 + i)),
      { formula: `${i + 2}*2`, result: (i + 2) * 2 },
    ]);
    row.getCell(3).numFmt = 'dd/mm/yyyy';
  });
  await workbook.xlsx.writeFile(path);
}

/** The review's rows as shown: the cost first, then what was found in the file. */
async function reviewRows(title: string): Promise<string[]> {
  await quickInput(page).filter({ hasText: title }).waitFor({ state: 'visible' });
  const list = page.locator('.quick-input-list .monaco-list-row');
  await list.first().waitFor();
  return (await list.allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
}

async function confirm(transactions: number, found: string): Promise<void> {
  const modal = dialog(page, `spend ${transactions} transaction`);
  await modal.waitFor();
  expect(await modal.textContent()).toContain(`Read as ${found}.`);
  await modal.locator('.monaco-button', { hasText: `Enrich (${transactions} transaction` }).click();
}

describe('Enrich File on JSON Lines and a workbook in code-server', () => {
  // Set-up, not a test: every test below needs the key.
  beforeAll(() => setApiKey(page, KEY));

  it('JSON Lines from the explorer: the cost and what was found, then the output beside it, lines kept whole', async () => {
    await enrichFromExplorer(page, 'leads.jsonl');
    await answerInput(page, 'which operation?', 'Phone Lookup');
    const shown = await reviewRows('Phone Lookup: leads.jsonl');
    console.log(
      `leads.jsonl: ${distinctValid} distinct valid requests; review: ${shown.slice(0, 2).join(' | ')}`,
    );
    expect(shown[0]).toContain(`Enrich: spend ${distinctValid} transactions`);
    expect(shown[0]).toContain(`${rows.length + 4} rows`);
    expect(shown[1]).toContain('JSON Lines (UTF-8)');
    await screenshot(page, 'kinds-1-jsonl-review');
    expect(sandbox.sandbox.transactions(KEY)).toBe(0);
    await page.keyboard.press('Enter');
    await confirm(distinctValid, 'JSON Lines (UTF-8)');

    // A text output: it opens in an editor, and the message says what was spent.
    await page.locator('.tab', { hasText: 'leads.phone-lookup.jsonl' }).waitFor({ timeout: 60_000 });
    await notification(page, 'Enrich File: wrote leads.phone-lookup.jsonl').waitFor();
    await notification(page, 'Phone Lookup: leads.jsonl').waitFor({ state: 'hidden' });
    await screenshot(page, 'kinds-2-jsonl-result');
    spentBefore = sandbox.sandbox.transactions(KEY);
    expect(spentBefore).toBe(distinctValid);

    const input = jsonl.split('\n');
    const output = readFileSync(join(server.workspaceDir, 'leads.phone-lookup.jsonl'), 'utf8').split('\n');
    expect(output).toHaveLength(input.length);
    let ok = 0;
    for (const [i, line] of input.entries()) {
      const written = output[i] ?? '';
      if (i === input.length - 1) {
        expect(written).toBe(''); // after the last line's newline
        continue;
      }
      const answer = JSON.parse(written) as Record<string, unknown>;
      if (line === '') {
        expect(answer.status).toMatch(/^invalid: blank row/);
        continue;
      }
      // The user's line byte for byte up to its closing brace, then the answer's columns and status.
      expect(written.startsWith(`${line.slice(0, -1)},`)).toBe(true);
      expect(Object.keys(answer).slice(0, 6)).toEqual(['id', 'name', 'phone', 'score', 'tags', 'owner']);
      expect(Object.keys(answer)).toContain('FName');
      expect(Object.keys(answer).at(-1)).toBe('status');
      if (answer.status === 'ok') ok++;
    }
    expect(ok).toBe(rows.length - 4);
  });

  it('a workbook from the explorer: the sheet asked for, the output a workbook of the same cells, shown in the Explorer', async () => {
    await enrichFromExplorer(page, 'leads.xlsx');
    await answerInput(page, 'which operation?', 'Phone Lookup');
    await answerInput(page, 'which sheet?', 'Leads');
    const found = 'Excel workbook, sheet "Leads" (2 of 2)';
    const shown = await reviewRows('Phone Lookup: leads.xlsx');
    expect(shown[1]).toContain(found);
    // Its phones were all bought for the JSON Lines: the answer cache beside them serves them again.
    expect(shown[0]).toContain('Enrich: spend 0 transactions');
    await screenshot(page, 'kinds-3-xlsx-review');
    await page.keyboard.press('Enter');
    await confirm(0, found);
    await notification(page, 'Enrich File: wrote leads.phone-lookup.xlsx').waitFor({ timeout: 60_000 });
    // The run's progress closes as it ends; the picture shows the outcome only.
    await notification(page, 'Phone Lookup: leads.xlsx').waitFor({ state: 'hidden' });
    // VS Code shows no workbook: the Explorer selects it instead.
    await page
      .locator('.explorer-folders-view .monaco-list-row.selected', { hasText: 'leads.phone-lookup.xlsx' })
      .waitFor();
    await screenshot(page, 'kinds-4-xlsx-result');
    expect(sandbox.sandbox.transactions(KEY)).toBe(spentBefore);

    const input = new ExcelJS.Workbook();
    await input.xlsx.readFile(join(server.workspaceDir, 'leads.xlsx'));
    const leads = input.worksheets.find((sheet) => sheet.name === 'Leads');
    const output = new ExcelJS.Workbook();
    await output.xlsx.readFile(join(server.workspaceDir, 'leads.phone-lookup.xlsx'));
    const sheet = output.worksheets.find((s) => s.name === 'Leads');
    expect(sheet?.actualRowCount).toBe(21);
    const header = sheet ? cellsOf(sheet.getRow(1), sheet.getRow(1).cellCount).map((c) => c.value) : [];
    expect(header.slice(0, 4)).toEqual(['Name', 'Phone', 'Since', 'Twice']);
    expect(header).toContain('FName');
    expect(header.at(-1)).toBe('status');
    for (let row = 2; row <= 21; row++) {
      expect(sheet ? cellsOf(sheet.getRow(row), 4) : []).toEqual(leads ? cellsOf(leads.getRow(row), 4) : []);
      expect(sheet?.getRow(row).getCell(header.length).value).toBe('ok');
    }
  });

  it('leaves the key in no file', async () => {
    await context.close();
    await server.close();
    expect(filesContaining(server.root, KEY)).toEqual([]);
  });
});
