// An .xlsx output keeps the workbook it enriches, end to end against the sandbox over real HTTP:
// a workbook made by exceljs with what people put in one (a formula filled down, which Excel and
// exceljs save as a shared formula; rich text; a hyperlink; merged cells; styles; other sheets
// before and after the one read) goes through runBulk, and the output, read back with exceljs,
// has every cell of every sheet as the input had it (value, type, formula, style), the merged
// ranges, and the sheets in their order, the output columns added to the sheet read.
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { outputColumns } from '@enrich/core';
import type { Worksheet } from 'exceljs';
import { describe, expect, it, vi } from 'vitest';
import { type BulkOptions, readZipEntry, runBulk } from '../src/index.js';
import { outputHeader } from '../src/run/output-columns.js';
import { useSandbox } from './fixtures.js';
import { cellsOf, HEADER, readWorkbook, richWorkbook } from './rich-workbook.js';
import { op, phone, sandboxRun } from './sandbox-run.js';
import { workbookParts, writeZip, type ZipPart } from './zip-bomb.js';

const at = useSandbox();

function options(inPath: string, outPath: string, sheet?: string): BulkOptions {
  return sandboxRun(at.server, { inPath, outPath }, sheet === undefined ? {} : { layout: { sheet } });
}

describe('an .xlsx output of an .xlsx input', () => {
  it('keeps every cell of every sheet as it was (shared formula, rich text, hyperlinks, styles), the merged cells and the sheets in their order', async () => {
    const { dir, server } = at;
    const inPath = join(dir, 'book.xlsx');
    const outPath = join(dir, 'book.phone-lookup.xlsx');
    await richWorkbook(inPath);

    const summary = await runBulk(options(inPath, outPath, 'Leads'));
    expect(summary).toMatchObject({ completed: true, rows: 6, ok: 5, blank: 1, transactions: 4 });
    expect(server.sandbox.stats().transactions).toBe(4);

    const input = await readWorkbook(inPath);
    const output = await readWorkbook(outPath);
    expect(output.worksheets.map((sheet) => sheet.name)).toEqual(['Notes', 'Leads', 'Totals']);
    for (const name of ['Notes', 'Leads', 'Totals']) {
      const was = input.getWorksheet(name) as Worksheet;
      const now = output.getWorksheet(name) as Worksheet;
      // Every input cell, compared one by one so that a difference names its cell.
      const before = cellsOf(was);
      const after = cellsOf(now, name === 'Leads' ? HEADER.length : Number.POSITIVE_INFINITY);
      expect(before.size, name).toBeGreaterThan(0);
      for (const [address, cell] of before) expect(after.get(address), `${name}!${address}`).toEqual(cell);
      expect([...after.keys()], name).toEqual([...before.keys()]);
      expect(now.model.merges, name).toEqual(was.model.merges);
      expect(now.getColumn(1).width, name).toBe(was.getColumn(1).width);
    }

    // What the comparison covered, spelled out.
    const leads = output.getWorksheet('Leads') as Worksheet;
    expect(leads.getCell('D2').value).toEqual({
      formula: 'C2*2',
      result: 20,
      shareType: 'shared',
      ref: 'D2:D5',
    });
    expect(leads.getCell('D4').value).toEqual({ sharedFormula: 'D2', result: 14 });
    expect(leads.getCell('D4').formula).toBe('C4*2');
    expect(leads.getCell('A2').value).toEqual({
      richText: [{ text: 'José', font: { bold: true } }, { text: ' Ñúñez' }],
    });
    expect(leads.getCell('E3').value).toEqual({ text: 'site 3', hyperlink: 'https://example.com/lead/3' });
    expect(leads.model.merges).toEqual(['F2:F3']);
    expect(leads.getCell('A1').font).toMatchObject({ bold: true });
    expect((output.getWorksheet('Notes') as Worksheet).model.merges).toEqual(['A1:C1']);

    // The output columns after the header's, status last; a row per input row.
    const header = (leads.getRow(1).values as unknown[]).slice(1);
    expect(header).toEqual(outputHeader(op, HEADER, outputColumns(op)));
    const status = (r: number) => leads.getCell(r, header.length).value;
    for (const r of [2, 3, 4, 5, 7]) expect(status(r), `row ${r}`).toBe('ok');
    expect(status(6)).toMatch(/^invalid: blank row/);
  });
});

const MAIN = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml';
const MACRO_MAIN = 'application/vnd.ms-excel.sheet.macroEnabled.main+xml';
const VBA_BYTES = Buffer.from('not really VBA, but bytes to keep \u0000\u0001\u0002');

/** A workbook with macros (.xlsm): the minimal workbook, its VBA project declared as Excel does. */
function macroWorkbookParts(): ZipPart[] {
  const changed = (part: ZipPart, change: (text: string) => string): ZipPart => ({
    name: part.name,
    text: () => [change([...part.text()].join(''))],
  });
  return [
    ...workbookParts(phone(5), () => ['Zoë']).map((part) => {
      if (part.name === '[Content_Types].xml') {
        return changed(part, (xml) =>
          xml
            .replace(MAIN, MACRO_MAIN)
            .replace(
              '<Default Extension="xml"',
              '<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/><Default Extension="xml"',
            ),
        );
      }
      if (part.name === 'xl/_rels/workbook.xml.rels') {
        return changed(part, (xml) =>
          xml.replace(
            '</Relationships>',
            '<Relationship Id="rId9" Type="http://schemas.microsoft.com/office/2006/relationships/vbaProject" Target="vbaProject.bin"/></Relationships>',
          ),
        );
      }
      return part;
    }),
    { name: 'xl/vbaProject.bin', text: () => [VBA_BYTES] },
  ];
}

/** A part of the zip at `path`, unpacked (undefined when it has none of that name). */
async function part(path: string, name: string): Promise<Buffer | undefined> {
  const file = await open(path, 'r');
  try {
    return await readZipEntry(file, name, 1024 * 1024);
  } finally {
    await file.close();
  }
}

describe('a workbook changed during its run', () => {
  it('is not copied into an output: the run says so, and a rerun pays for nothing twice', async () => {
    const { dir, server } = at;
    const inPath = join(dir, 'book.xlsx');
    const outPath = join(dir, 'book.phone-lookup.xlsx');
    await richWorkbook(inPath);
    server.sandbox.configure({ latencyMs: 300 });
    const run = runBulk(options(inPath, outPath, 'Leads'));
    await vi.waitFor(() => expect(server.sandbox.stats().requests).toBeGreaterThan(0), { timeout: 10_000 });
    // Saved again meanwhile (another shared string, another part's CRC): its rows are not the ones read.
    const workbook = await readWorkbook(inPath);
    (workbook.getWorksheet('Notes') as Worksheet).getCell('A5').value = 'added while the run was on';
    await workbook.xlsx.writeFile(inPath);
    await expect(run).rejects.toThrow(
      `${inPath} changed while it was being enriched, so its enriched copy is not written. Run again: the answers already bought are in the answer cache and are not paid for twice.`,
    );
    expect(existsSync(outPath)).toBe(false);
    const paid = server.sandbox.stats().transactions;
    server.sandbox.configure({ latencyMs: 0 });
    expect(await runBulk(options(inPath, outPath, 'Leads'))).toMatchObject({
      completed: true,
      transactions: 0,
    });
    expect(server.sandbox.stats().transactions).toBe(paid);
  });
});

describe('macros', () => {
  it('an .xlsm keeps its macros in its .xlsm output; an .xlsx output of it is declared without them and leaves them out; an .xlsx to .xlsm is declared macro-enabled', async () => {
    const { dir } = at;
    const inPath = join(dir, 'macros.xlsm');
    await writeZip(inPath, macroWorkbookParts());

    const kept = join(dir, 'macros.phone-lookup.xlsm');
    expect(await runBulk(options(inPath, kept))).toMatchObject({ completed: true, ok: 1 });
    expect(await part(kept, 'xl/vbaProject.bin')).toEqual(VBA_BYTES);
    expect(String(await part(kept, '[Content_Types].xml'))).toContain(MACRO_MAIN);
    expect(String(await part(kept, 'xl/_rels/workbook.xml.rels'))).toContain('vbaProject');

    const plain = join(dir, 'plain.xlsx');
    expect(await runBulk(options(inPath, plain))).toMatchObject({ completed: true, ok: 1 });
    expect(await part(plain, 'xl/vbaProject.bin')).toBeUndefined();
    const types = String(await part(plain, '[Content_Types].xml'));
    expect(types).toContain(`"${MAIN}"`);
    expect(types).not.toContain('macroEnabled');
    expect(String(await part(plain, 'xl/_rels/workbook.xml.rels'))).not.toContain('vbaProject');
    const sheet = (await readWorkbook(plain)).getWorksheet('Leads') as Worksheet;
    expect(sheet.getCell('A2').value).toBe('Zoë');
    expect((sheet.getRow(2).values as unknown[]).at(-1)).toBe('ok');

    const again = join(dir, 'again.xlsm');
    expect(await runBulk(options(plain, again))).toMatchObject({ completed: true });
    expect(String(await part(again, '[Content_Types].xml'))).toContain(`"${MACRO_MAIN}"`);
  });
});
