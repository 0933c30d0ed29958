// "Enrich File..." on the other kinds of file the bulk engine reads, against a real sandbox over
// HTTP: a .tsv, a Windows-1252 .txt separated by semicolons, JSON Lines and an Excel workbook of
// several sheets. Each run shows what was found in the file (in the review and the confirmation),
// spends what it showed, and writes its output beside the input, of the same kind, with the user's
// own columns as they were. The menus and the palette's file picker offer these kinds.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BulkSummary } from '@enrich/bulk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isEnrichable, openDialogFilters } from '../../src/file-run/kinds';
import { OPEN_WORKBOOK, SHOW_IN_FOLDER } from '../../src/file-run/open-output';
import { sheetsOf, workbookSheets } from '../../src/file-run/workbook-sheets';
import { COMMAND, contributes } from '../../src/manifest';
import { cellsOf, ExcelJS } from '../exceljs';
import { commands, env, reply, UIKind, Uri, ui } from '../vscode-stub';
import { activateWithSandbox, closeHarnesses, type Harness, TEST_KEY, tempDir } from './harness';

let harness: Harness | undefined;
afterEach(closeHarnesses);

// As csv.test.ts's file: one phone three ways, two more, a reserved no-match (paid), a blank row and
// an invalid phone: 4 distinct valid requests.
const ROWS = [
  ['A', '5550102030', '5550102099'],
  ['B', '(555) 010-2030', '5550102099'],
  ['C', '555.010.2030', '5550102099'],
  ['D', '5550102031', '5550102099'],
  ['E', '5550102032', '5550102099'],
  ['F', '5550000204', '5550102099'],
  ['', '', ''],
  ['H', '555010', '5550102099'],
  ['I', '5550102031', '5550102099'],
];
const HEADER = ['Name', 'Phone Number', 'Mobile'];

function fileIn(name: string, content: string | Buffer): string {
  const path = join(tempDir('enrich-kinds-'), name);
  writeFileSync(path, content);
  return path;
}

const enrich = (path: string) =>
  commands.executeCommand<BulkSummary | undefined>(COMMAND.enrichCsv, Uri.file(path));
const confirmModal = () => {
  ui.answer = (m) => (m.modal ? m.actions[0] : undefined);
};
const review = (name: string) => ui.seen.find((s) => s.title === `Phone Lookup: ${name}`);

describe('Enrich File on a CSV of another layout', () => {
  it('a .tsv: tab-separated, answered, written as .tsv with its columns unchanged', async () => {
    harness = await activateWithSandbox();
    const path = fileIn('leads.tsv', `${[HEADER, ...ROWS].map((r) => r.join('\t')).join('\n')}\n`);
    reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 4 transactions' });
    confirmModal();
    const summary = await enrich(path);
    expect(review('leads.tsv')?.items.slice(0, 2)).toEqual([
      '$(play) Enrich: spend 4 transactions',
      '$(file) UTF-8 (detected), tab-separated (detected)',
    ]);
    const modal = ui.messages.find((m) => m.modal);
    expect(modal?.detail).toContain(
      'Transactions to spend: 4. Read as UTF-8 (detected), tab-separated (detected). The result goes to leads.phone-lookup.tsv.',
    );
    expect(summary).toMatchObject({ completed: true, transactions: 4, ok: 6, noMatch: 1, inputKind: 'csv' });
    expect(harness.server.sandbox.transactions(TEST_KEY)).toBe(4);
    const out = join(path, '..', 'leads.phone-lookup.tsv');
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(ROWS.length + 1);
    const header = lines[0]?.split('\t') ?? [];
    expect(header.slice(0, 3)).toEqual(HEADER);
    expect(header).toContain('FName');
    expect(header.at(-1)).toBe('status');
    ROWS.forEach((row, i) => {
      expect(lines[i + 1]?.split('\t').slice(0, 3)).toEqual(row);
    });
    // A text output opens in an editor, as a CSV's does.
    expect(ui.documents.at(-1)?.uri.fsPath).toBe(out);
  });

  it('a Windows-1252 .txt separated by semicolons: what was found is shown; the output is UTF-8 with a BOM, ; kept', async () => {
    harness = await activateWithSandbox();
    const rows = [HEADER, ['Renée', '5550102030', ''], ['Zoë', '5550102031', '']];
    const path = fileIn(
      'leads.txt',
      Buffer.from(`${rows.map((r) => r.join(';')).join('\r\n')}\r\n`, 'latin1'),
    );
    reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 2 transactions' });
    confirmModal();
    const summary = await enrich(path);
    const found = 'Windows-1252 (detected), semicolon-separated (detected)';
    expect(review('leads.txt')?.items[1]).toBe(`$(file) ${found}`);
    expect(ui.messages.find((m) => m.modal)?.detail).toContain(`Read as ${found}.`);
    expect(summary).toMatchObject({ completed: true, transactions: 2, found });
    const written = readFileSync(join(path, '..', 'leads.phone-lookup.txt'));
    expect([...written.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = written.subarray(3).toString('utf8').split('\r\n');
    expect(lines[0]).toMatch(/^Name;Phone Number;Mobile;.*FName/);
    expect(lines[1]?.startsWith('Renée;5550102030;;')).toBe(true);
    expect(lines[2]?.startsWith('Zoë;5550102031;;')).toBe(true);
  });
});

describe('Enrich File on JSON Lines', () => {
  it('answers each line; the output .jsonl keeps every line whole, the answer after its own keys', async () => {
    harness = await activateWithSandbox();
    const lines = ROWS.map(([name, phone, mobile], i) =>
      name === ''
        ? ''
        : // Keys in the user's own order and spacing, a number written 1.50, an array, a nested object.
          `{"name": "${name}", "phone":"${phone}", "mobile":"${mobile}", "score": 1.50, "tags": ["lead", ${i}], "address": {"zip": "0210${i}"}}`,
    );
    const path = fileIn('leads.jsonl', `${lines.join('\n')}\n`);
    reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 4 transactions' });
    confirmModal();
    const summary = await enrich(path);
    expect(review('leads.jsonl')?.items.slice(0, 2)).toEqual([
      '$(play) Enrich: spend 4 transactions',
      '$(file) JSON Lines (UTF-8)',
    ]);
    // The mapping found the phone under its key.
    expect(review('leads.jsonl')?.items).toContain('Phone');
    expect(ui.messages.find((m) => m.modal)?.detail).toContain('Read as JSON Lines (UTF-8).');
    expect(summary).toMatchObject({
      completed: true,
      transactions: 4,
      ok: 6,
      noMatch: 1,
      inputKind: 'jsonl',
    });
    expect(harness.server.sandbox.transactions(TEST_KEY)).toBe(4);

    const out = join(path, '..', 'leads.phone-lookup.jsonl');
    const written = readFileSync(out, 'utf8').split('\n');
    expect(written.at(-1)).toBe('');
    expect(written).toHaveLength(lines.length + 1);
    lines.forEach((line, i) => {
      const outLine = written[i] ?? '';
      const answer = JSON.parse(outLine) as Record<string, unknown>;
      if (line === '') {
        expect(answer.status).toMatch(/^invalid: blank row/);
        return;
      }
      // The line as it was up to its closing brace, byte for byte; then the answer's columns.
      expect(outLine.startsWith(`${line.slice(0, -1)},`)).toBe(true);
      expect(Object.keys(answer).slice(0, 6)).toEqual([
        'name',
        'phone',
        'mobile',
        'score',
        'tags',
        'address',
      ]);
      expect(Object.keys(answer)).toContain('FName');
      expect(Object.keys(answer).at(-1)).toBe('status');
    });
    expect(JSON.parse(written[0] ?? '')).toMatchObject({ status: 'ok' });
    expect(JSON.parse(written[7] ?? '').status).toMatch(/^invalid/);
    // JSON Lines are text: the output opens in an editor.
    expect(ui.documents.at(-1)?.uri.fsPath).toBe(out);
    expect(readdirSync(join(path, '..')).sort()).toEqual([
      '.enrich-cache.jsonl',
      'leads.jsonl',
      'leads.phone-lookup.jsonl',
    ]);
  });
});

/** A workbook as an office tool writes it: a notes sheet first, the leads second, a hidden third. */
async function workbookFile(): Promise<{ path: string; input: unknown[][] }> {
  const workbook = new ExcelJS.Workbook();
  const notes = workbook.addWorksheet('Notes');
  notes.addRow(['Read me']);
  notes.addRow(['The leads are on the next sheet']);
  const leads = workbook.addWorksheet('Leads');
  const since = new Date(Date.UTC(2021, 4, 17));
  // Phones typed as numbers (as Excel keeps them), a date, a number with its format, a formula.
  const input: unknown[][] = [
    ['Name', 'Phone', 'Since', 'Score', 'Double'],
    ['A', 5550102030, since, 1.5, { formula: 'D2*2', result: 3 }],
    ['B', '(555) 010-2030', since, 2.25, { formula: 'D3*2', result: 4.5 }],
    ['D', 5550102031, since, 3, { formula: 'D4*2', result: 6 }],
    ['F', 5550000204, since, 0.5, { formula: 'D5*2', result: 1 }],
    ['H', 555010, since, 1, { formula: 'D6*2', result: 2 }],
    ['I', 5550102031, since, 4, { formula: 'D7*2', result: 8 }],
  ];
  for (const values of input) {
    const row = leads.addRow(values);
    if (values[0] !== 'Name') {
      row.getCell(3).numFmt = 'yyyy-mm-dd';
      row.getCell(4).numFmt = '0.00';
    }
  }
  workbook.addWorksheet('Old & "unused"', { state: 'hidden' }).addRow(['Phone']);
  const path = join(tempDir('enrich-kinds-'), 'leads.xlsx');
  await workbook.xlsx.writeFile(path);
  return { path, input };
}

describe('Enrich File on an Excel workbook', () => {
  it('lists its sheets from the workbook, hidden ones marked; anything else has none', async () => {
    const { path } = await workbookFile();
    expect(await workbookSheets(path)).toEqual([
      { name: 'Notes', hidden: false },
      { name: 'Leads', hidden: false },
      { name: 'Old & "unused"', hidden: true },
    ]);
    expect(await workbookSheets(fileIn('leads.csv', 'Phone\n5550102030\n'))).toEqual([]);
    expect(await workbookSheets(fileIn('cut.xlsx', readFileSync(path).subarray(0, 200)))).toEqual([]);
    expect(await workbookSheets(join(path, '..', 'missing.xlsx'))).toEqual([]);
    // Another writer's prefix, quotes and character references.
    expect(
      sheetsOf(
        `<x:workbook><x:sheets><x:sheet name='Q1 &#x26; Q2' sheetId="1"/><x:sheet sheetId="2" name="Caf&#233;" state="veryHidden"/></x:sheets></x:workbook>`,
      ),
    ).toEqual([
      { name: 'Q1 & Q2', hidden: false },
      { name: 'Café', hidden: true },
    ]);
  });

  it('asks for the sheet, shows it, and writes a workbook whose cells keep their values and types', async () => {
    harness = await activateWithSandbox();
    const { path, input } = await workbookFile();
    reply({ pick: 'Phone Lookup' }, { pick: 'Leads' }, { pick: '$(play) Enrich: spend 3 transactions' });
    ui.answer = (m) =>
      m.modal ? m.actions[0] : m.actions.includes(OPEN_WORKBOOK) ? OPEN_WORKBOOK : undefined;
    const summary = await enrich(path);

    const sheetPick = ui.seen.find((s) => s.title === 'Enrich leads.xlsx: which sheet?');
    expect(sheetPick?.items).toEqual(['Notes', 'Leads', 'Old & "unused"']);
    const found = 'Excel workbook, sheet "Leads" (2 of 3)';
    expect(review('leads.xlsx')?.items[1]).toBe(`$(file) ${found}`);
    expect(ui.messages.find((m) => m.modal)?.detail).toContain(
      `Read as ${found}. The result goes to leads.phone-lookup.xlsx.`,
    );
    expect(summary).toMatchObject({
      completed: true,
      transactions: 3,
      ok: 4,
      noMatch: 1,
      inputKind: 'xlsx',
      found,
    });
    expect(harness.server.sandbox.transactions(TEST_KEY)).toBe(3);

    const out = join(path, '..', 'leads.phone-lookup.xlsx');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(out);
    // Every sheet of the workbook, in its order; the one read has the output columns.
    expect(workbook.worksheets.map((s) => s.name)).toEqual(['Notes', 'Leads', 'Old & "unused"']);
    const sheet = workbook.worksheets.find((s) => s.name === 'Leads');
    expect(sheet?.actualRowCount).toBe(input.length);
    const header = sheet?.getRow(1);
    const names = Array.from({ length: header?.cellCount ?? 0 }, (_, i) => header?.getCell(i + 1).value);
    expect(names.slice(0, 5)).toEqual(input[0]);
    expect(names).toContain('FName');
    expect(names.at(-1)).toBe('status');
    // Each input cell as it was: the value, its type (a number stays a number, a date a date, a
    // formula its formula and result) and its number format; the answer's columns after them.
    const source = new ExcelJS.Workbook();
    await source.xlsx.readFile(path);
    const leads = source.worksheets.find((s) => s.name === 'Leads');
    for (let row = 1; row <= input.length; row++) {
      const wrote = sheet ? cellsOf(sheet.getRow(row), 5) : [];
      expect(wrote).toEqual(leads ? cellsOf(leads.getRow(row), 5) : undefined);
    }
    expect(sheet?.getRow(2).getCell(names.indexOf('status') + 1).value).toBe('ok');
    expect(String(sheet?.getRow(6).getCell(names.indexOf('status') + 1).value)).toMatch(/^invalid/);

    // VS Code shows no workbook: it is selected in the Explorer, not opened as text; on a desktop the
    // message offers the system's app (taken here) or its folder.
    expect(ui.documents.map((d) => d.uri.fsPath)).not.toContain(out);
    const reveal = ui.executed.find((e) => e.command === 'revealInExplorer');
    expect((reveal?.args[0] as Uri | undefined)?.fsPath).toBe(out);
    const closing = ui.messages.at(-1);
    expect(closing?.text).toMatch(/^Enrich File: wrote leads\.phone-lookup\.xlsx; 3 transactions spent/);
    expect(closing?.actions).toEqual([OPEN_WORKBOOK, SHOW_IN_FOLDER]);
    await vi.waitFor(() => expect(ui.openedExternally.map((u) => u.fsPath)).toEqual([out]));
  });

  it('in a browser or remote window: no desktop actions, the Explorer holds the workbook; a rerun spends nothing', async () => {
    harness = await activateWithSandbox();
    const { path } = await workbookFile();
    reply({ pick: 'Phone Lookup' }, { pick: 'Leads' }, { pick: '$(play) Enrich: spend 3 transactions' });
    confirmModal();
    expect(await enrich(path)).toMatchObject({ completed: true, transactions: 3 });
    env.uiKind = UIKind.Web;
    ui.messages = [];
    reply({ pick: 'Phone Lookup' }, { pick: 'Leads' }, { pick: '$(play) Enrich: spend 0 transactions' });
    expect(await enrich(path)).toMatchObject({ completed: true, transactions: 0, fromCache: 3 });
    const closing = ui.messages.at(-1);
    expect(closing?.text).toContain('it is selected in the Explorer (Download... takes it to this computer)');
    expect(closing?.actions).toEqual([]);
    expect(harness.server.sandbox.transactions(TEST_KEY)).toBe(3);
  });

  it('the review leads to another sheet; a sheet without the columns needed cannot run', async () => {
    harness = await activateWithSandbox();
    const { path } = await workbookFile();
    reply(
      { pick: 'Phone Lookup' },
      { pick: 'Notes' },
      { pick: '$(file) Excel workbook, sheet "Notes"' },
      { pick: 'Leads' },
      { pick: '$(play) Enrich: spend 3 transactions' },
    );
    confirmModal();
    const summary = await enrich(path);
    const [onNotes, onLeads] = ui.seen.filter((s) => s.title === 'Phone Lookup: leads.xlsx');
    expect(onNotes?.items[0]).toBe('$(error) Cannot run with this mapping');
    expect(onLeads?.items[1]).toBe('$(file) Excel workbook, sheet "Leads" (2 of 3)');
    // The second sheet pick starts on the sheet the review was showing.
    expect(ui.seen.filter((s) => s.title === 'Enrich leads.xlsx: which sheet?')[1]?.active).toEqual([
      'Notes',
    ]);
    expect(summary).toMatchObject({ completed: true, transactions: 3 });
  });
});

describe('which files Enrich File takes', () => {
  it('the explorer and editor title menus show it for .csv .tsv .txt .xlsx .jsonl .ndjson, in any case', () => {
    const menus = contributes().menus;
    for (const entry of [...menus['explorer/context'], ...menus['editor/title']]) {
      expect(entry.command).toBe(COMMAND.enrichCsv);
      const [, source, flags] =
        /resourceExtname =~ \/(.+)\/(\w*) && !explorerResourceIsFolder$/.exec(entry.when) ?? [];
      const pattern = new RegExp(source ?? '$^', flags);
      for (const ext of ['.csv', '.tsv', '.txt', '.xlsx', '.jsonl', '.ndjson', '.CSV', '.XLSX'])
        expect(pattern.test(ext), ext).toBe(true);
      for (const ext of ['.json', '.xls', '.xlsb', '.ods', '.csv.gz', '.pdf', 'csv', '.xcsv'])
        expect(pattern.test(ext), ext).toBe(false);
    }
    expect(isEnrichable('/data/Leads.NDJSON')).toBe(true);
    expect(isEnrichable('/data/leads.json')).toBe(false);
    expect(isEnrichable('/data/.csv')).toBe(false);
  });

  it('from the palette, the file picker offers those kinds; the file picked is enriched', async () => {
    harness = await activateWithSandbox();
    const path = fileIn('leads.ndjson', '{"Phone":"5550102030"}\n{"Phone":"5550102031"}\n');
    ui.openDialog = () => [Uri.file(path)];
    reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 2 transactions' });
    confirmModal();
    const summary = await commands.executeCommand<BulkSummary | undefined>(COMMAND.enrichCsv);
    expect(ui.openDialogs[0]?.filters).toEqual({
      'CSV, Excel or JSON Lines': ['csv', 'tsv', 'txt', 'xlsx', 'jsonl', 'ndjson'],
      CSV: ['csv', 'tsv', 'txt'],
      'Excel workbook': ['xlsx'],
      'JSON Lines': ['jsonl', 'ndjson'],
    });
    expect(openDialogFilters()).toEqual(ui.openDialogs[0]?.filters);
    expect(summary).toMatchObject({ completed: true, transactions: 2, inputKind: 'jsonl' });
    expect(readFileSync(join(path, '..', 'leads.phone-lookup.ndjson'), 'utf8')).toMatch(
      /^\{"Phone":"5550102030",.*"status":"ok"\}\n\{"Phone":"5550102031",.*"status":"ok"\}\n$/,
    );
  });
});
