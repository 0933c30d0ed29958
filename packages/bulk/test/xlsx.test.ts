// Excel workbooks in and out, end to end against the sandbox over real HTTP on 127.0.0.1: the
// workbooks are made by exceljs as an office tool writes them (shared strings, styles, the
// workbook's parts in exceljs's order), run through runBulk, and the output read back with exceljs
// to compare every input cell with the input's, value and type.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { outputColumns } from '@enrich/core';
import { parse } from 'csv-parse/sync';
import ExcelJS, { type Cell, type Workbook, type Worksheet } from 'exceljs';
import { describe, expect, it, vi } from 'vitest';
import { openSource } from '../src/formats/open-source.js';
import { BulkError, type BulkOptions, planBulk, runBulk } from '../src/index.js';
import { outputHeader } from '../src/run/output-columns.js';
import { useSandbox, useSandboxServer } from './fixtures.js';
import { op, phone, sandboxRun } from './sandbox-run.js';

const at = useSandbox();

function options(inPath: string, outPath: string, sheet?: string): BulkOptions {
  return sandboxRun(at.server, { inPath, outPath }, sheet === undefined ? {} : { layout: { sheet } });
}

const HEADER = ['Name', 'Phone', 'ZIP', 'Born', 'Letters', 'Member'];
const BORN = new Date(Date.UTC(1990, 4, 17));
const MET = new Date(Date.UTC(2024, 0, 2, 13, 45));

/**
 * A workbook of two sheets, "Leads" first: phones as text (one with leading zeros, which is not a
 * US phone) and as numbers, a ZIP typed as a number shown with its zero ("00000"), dates, a
 * formula with its cached result, accents, a boolean, and row 6 left out (a blank row).
 */
async function leadsWorkbook(path: string): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  const leads = workbook.addWorksheet('Leads');
  leads.addRow(HEADER);
  leads.addRow(['José Ñúñez', phone(1), 2134, BORN, { formula: 'LEN(A2)', result: 10 }, true]);
  leads.addRow(['Zoë', Number(phone(2)), 90210, MET, { formula: 'LEN(A3)', result: 3 }, false]);
  leads.addRow(['Åsa Öberg', '00442079460000', 501, BORN, { formula: 'A4&"!"', result: 'Åsa Öberg!' }, true]);
  leads.addRow(['Chloé', phone(1), 2134, null, null, null]);
  leads.getRow(7).values = [
    'François',
    Number(phone(3)),
    10001,
    MET,
    { formula: 'LEN(A7)', result: 8 },
    false,
  ];
  for (let row = 2; row <= 7; row++) {
    leads.getCell(`C${row}`).numFmt = '00000';
    leads.getCell(`D${row}`).numFmt = row === 3 || row === 7 ? 'dd/mm/yyyy hh:mm' : 'yyyy-mm-dd';
  }
  const other = workbook.addWorksheet('Other');
  other.addRow(['Who', 'Tel']);
  other.addRow(['Zoë', phone(7)]);
  other.addRow(['Noël', Number(phone(8))]);
  await workbook.xlsx.writeFile(path);
}

async function readWorkbook(path: string): Promise<Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  return workbook;
}

/**
 * A cell as the test compares it: its type and value (a date by its time), and the number format
 * of a number, a date or a formula (an empty cell's format, which shows nothing, is not kept).
 */
function cellOf(cell: Cell): unknown {
  const value = cell.value instanceof Date ? { date: cell.value.getTime() } : cell.value;
  const types = ExcelJS.ValueType;
  const formatted = cell.type === types.Number || cell.type === types.Date || cell.type === types.Formula;
  return { type: cell.type, value, numFmt: formatted ? cell.numFmt : undefined };
}

/**
 * Writes the zip at `from` again at `to`, its entries in `first`'s order and then the others (the
 * compressed data copied as it is), the text of an entry named in `change` changed by it.
 */
function repack(
  from: string,
  to: string,
  first: readonly string[],
  change: Readonly<Record<string, (text: string) => string>> = {},
): void {
  const zip = readFileSync(from);
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const entries: { name: Buffer; central: Buffer; data: Buffer }[] = [];
  let at = zip.readUInt32LE(end + 16);
  for (let i = zip.readUInt16LE(end + 10); i > 0; i--) {
    const nameLength = zip.readUInt16LE(at + 28);
    const local = zip.readUInt32LE(at + 42);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const name = zip.subarray(at + 46, at + 46 + nameLength);
    const central = Buffer.from(zip.subarray(at, at + 46));
    let data = zip.subarray(start, start + zip.readUInt32LE(at + 20));
    const changed = change[name.toString()];
    if (changed) {
      // Deflated (method 8), as exceljs writes every part.
      const text = Buffer.from(changed(inflateRawSync(data).toString('utf8')));
      data = deflateRawSync(text);
      central.writeUInt32LE(crc32(text), 16);
      central.writeUInt32LE(data.length, 20);
      central.writeUInt32LE(text.length, 24);
    }
    entries.push({ name, central, data });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  const rank = (name: Buffer) => {
    const i = first.indexOf(name.toString());
    return i === -1 ? first.length : i;
  };
  entries.sort((a, b) => rank(a.name) - rank(b.name));
  const parts: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const { name, central, data } of entries) {
    // A local header with the sizes and CRC of the central one (no data descriptor after the data).
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    central.copy(header, 8, 10, 12); // method
    central.copy(header, 14, 16, 30); // CRC, sizes, name length
    const entry = Buffer.from(central);
    entry.writeUInt16LE(0, 8); // no data descriptor
    entry.writeUInt16LE(0, 30); // no extra field
    entry.writeUInt16LE(0, 32); // no comment
    entry.writeUInt32LE(offset, 42);
    parts.push(header, name, data);
    directory.push(entry, name);
    offset += 30 + name.length + data.length;
  }
  const list = Buffer.concat(directory);
  const tail = Buffer.alloc(22);
  tail.writeUInt32LE(0x06054b50, 0);
  tail.writeUInt16LE(entries.length, 8);
  tail.writeUInt16LE(entries.length, 10);
  tail.writeUInt32LE(list.length, 12);
  tail.writeUInt32LE(offset, 16);
  writeFileSync(to, Buffer.concat([...parts, list, tail]));
}

/** Runs `work` with the temp directory (exceljs's, through the tmp package) a folder of its own. */
async function withOwnTempDir(dir: string, work: (temp: string) => Promise<void>): Promise<void> {
  const temp = join(dir, 'temp');
  mkdirSync(temp);
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = temp;
  try {
    await work(temp);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

describe('Excel workbooks', () => {
  it('xlsx to xlsx: rows enriched, every input cell as it was (value and type), the output columns after them', async () => {
    const { dir, server } = at;
    const inPath = join(dir, 'leads.xlsx');
    const outPath = join(dir, 'leads.phone-lookup.xlsx');
    await leadsWorkbook(inPath);

    const plan = await planBulk(options(inPath, outPath));
    expect(plan.transactions).toBe(3);
    const summary = await runBulk(options(inPath, outPath));
    expect(summary).toMatchObject({ completed: true, transactions: 3, ok: 4, invalid: 2, blank: 1 });
    expect(summary.found).toBe('Excel workbook, sheet "Leads" (1 of 2)');
    expect(server.sandbox.stats().transactions).toBe(3);

    const input = (await readWorkbook(inPath)).getWorksheet('Leads') as Worksheet;
    const output = (await readWorkbook(outPath)).worksheets[0] as Worksheet;
    const columns = outputColumns(op);
    const header = output.getRow(1).values as unknown[];
    expect(header.slice(1)).toEqual(outputHeader(op, HEADER, columns));
    expect(output.rowCount).toBe(7);
    for (let r = 1; r <= 7; r++) {
      for (let c = 1; c <= HEADER.length; c++) {
        expect(cellOf(output.getCell(r, c)), `row ${r} column ${c}`).toEqual(cellOf(input.getCell(r, c)));
      }
    }
    // The types the comparison covered, spelled out.
    expect(output.getCell('B2').value).toBe(phone(1));
    expect(output.getCell('B3').value).toBe(Number(phone(2)));
    expect(output.getCell('B4').value).toBe('00442079460000');
    expect(output.getCell('C2')).toMatchObject({ value: 2134, numFmt: '00000' });
    expect(output.getCell('D2').value).toEqual(BORN);
    expect(output.getCell('D3')).toMatchObject({ value: MET, numFmt: 'dd/mm/yyyy hh:mm' });
    expect(output.getCell('E2').value).toEqual({ formula: 'LEN(A2)', result: 10 });
    expect(output.getCell('E4').value).toEqual({ formula: 'A4&"!"', result: 'Åsa Öberg!' });
    expect(output.getCell('A3').value).toBe('Zoë');

    // The output columns are text after the input's; status last.
    const status = (r: number) => output.getCell(r, HEADER.length + columns.length + 1).value;
    for (const r of [2, 3, 5, 7]) expect(status(r)).toMatch(/^ok/);
    expect(status(4)).toMatch(/^invalid/);
    expect(status(6)).toMatch(/^invalid: blank row/);
    for (let c = HEADER.length + 1; c <= HEADER.length + columns.length + 1; c++) {
      const cell = output.getCell(2, c);
      if (cell.value !== null) expect(cell.type, `column ${c}`).toBe(ExcelJS.ValueType.String);
    }

    // A second run replaces its own output without asking, and spends nothing.
    const again = await runBulk(options(inPath, outPath));
    expect(again).toMatchObject({ completed: true, transactions: 0 });
  });

  it('the output holds every sheet of the workbook, in its order; the sheet read is the one enriched', async () => {
    const { dir } = at;
    const inPath = join(dir, 'leads.xlsx');
    const outPath = join(dir, 'out.xlsx');
    await leadsWorkbook(inPath);
    await runBulk(options(inPath, outPath, 'Other'));
    const output = await readWorkbook(outPath);
    expect(output.worksheets.map((sheet) => sheet.name)).toEqual(['Leads', 'Other']);
    const header = (name: string) =>
      ((output.getWorksheet(name) as Worksheet).getRow(1).values as unknown[]).slice(1);
    expect(header('Other').at(-1)).toBe('status');
    expect(header('Leads')).toEqual(HEADER);
  });

  it('reads rows as text for planning: numbers as digits, dates as ISO 8601, formulas by their result; row numbers as Excel shows them', async () => {
    const { dir } = at;
    const inPath = join(dir, 'leads.xlsx');
    await leadsWorkbook(inPath);
    const source = await openSource(inPath);
    const batch = await source.nextBatch();
    source.close();
    expect(source.header).toEqual(HEADER);
    expect(batch?.firstRow).toBe(2);
    expect(batch?.records).toEqual([
      ['José Ñúñez', phone(1), '02134', '1990-05-17', '10', 'TRUE'],
      ['Zoë', phone(2), '90210', '2024-01-02T13:45:00', '3', 'FALSE'],
      ['Åsa Öberg', '00442079460000', '00501', '1990-05-17', 'Åsa Öberg!', 'TRUE'],
      ['Chloé', phone(1), '02134', '', '', ''],
      ['', '', '', '', '', ''],
      ['François', phone(3), '10001', '2024-01-02T13:45:00', '8', 'FALSE'],
    ]);
  });

  it('--sheet reads the sheet named; a sheet of no such name is refused before anything is sent', async () => {
    const { dir, server } = at;
    const inPath = join(dir, 'leads.xlsx');
    const outPath = join(dir, 'other.xlsx');
    await leadsWorkbook(inPath);
    const summary = await runBulk(options(inPath, outPath, 'Other'));
    expect(summary).toMatchObject({ completed: true, transactions: 2, ok: 2 });
    expect(summary.found).toBe('Excel workbook, sheet "Other" (2 of 2)');
    const output = (await readWorkbook(outPath)).getWorksheet('Other') as Worksheet;
    expect((output.getRow(1).values as unknown[]).slice(1, 3)).toEqual(['Who', 'Tel']);
    expect(output.getCell('A3').value).toBe('Noël');
    expect(output.getCell('B3').value).toBe(Number(phone(8)));

    server.sandbox.reset();
    const refused = runBulk(options(inPath, join(dir, 'none.xlsx'), 'Clients'));
    await expect(refused).rejects.toThrow(BulkError);
    await expect(refused).rejects.toThrow(
      'has no sheet named "Clients". Nothing was sent. Its sheets: "Leads", "Other".',
    );
    await expect(planBulk(options(inPath, join(dir, 'none.xlsx'), 'Clients'))).rejects.toThrow(BulkError);
    expect(server.sandbox.stats().requests).toBe(0);
  });

  it('reads a workbook whatever the order of its parts (sheets before the list of sheets and the styles, as some tools write them)', async () => {
    const { dir } = at;
    const made = join(dir, 'made.xlsx');
    const inPath = join(dir, 'reordered.xlsx');
    await leadsWorkbook(made);
    // exceljs alone fails on this order ("Cannot read properties of undefined (reading 'sheets')"),
    // and would read the dates as numbers (the styles come after the sheet).
    repack(made, inPath, [
      '_rels/.rels',
      'xl/_rels/workbook.xml.rels',
      'xl/sharedStrings.xml',
      'xl/worksheets/sheet1.xml',
      'xl/worksheets/sheet2.xml',
      'xl/styles.xml',
      'xl/workbook.xml',
    ]);
    const source = await openSource(inPath, { sheet: 'leads' });
    const batch = await source.nextBatch();
    source.close();
    expect(source.found).toBe('Excel workbook, sheet "Leads" (1 of 2)');
    expect(batch?.records[0]).toEqual(['José Ñúñez', phone(1), '02134', '1990-05-17', '10', 'TRUE']);
  });

  it('leaves no temp file behind: each sheet goes through one while it is read', async () => {
    const { dir } = at;
    const inPath = join(dir, 'leads.xlsx');
    await leadsWorkbook(inPath);
    await withOwnTempDir(dir, async (temp) => {
      for (const sheet of [undefined, 'Other']) {
        const opened = await openSource(inPath, { sheet });
        opened.close();
      }
      const read = await openSource(inPath);
      while (await read.nextBatch());
      read.close();
      // Closing lets exceljs walk the sheets left in the background, deleting each temp file as it
      // goes: wait for that walk (longer on a loaded machine), not for a fixed time.
      await vi.waitFor(() => expect(readdirSync(temp)).toEqual([]), { timeout: 10_000, interval: 25 });
    });
  });

  it('a damaged workbook is refused before anything is sent, without quoting its bytes', async () => {
    const { dir, server } = at;
    const whole = join(dir, 'whole.xlsx');
    await leadsWorkbook(whole);
    const bytes = readFileSync(whole);
    const cut = join(dir, 'cut.xlsx');
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const garbage = join(dir, 'garbage.xlsx');
    writeFileSync(
      garbage,
      Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('SECRET-LOOKING BYTES '.repeat(50))]),
    );
    const noSheets = join(dir, 'empty.xlsx');
    await new ExcelJS.Workbook().xlsx.writeFile(noSheets);
    for (const path of [cut, garbage, noSheets]) {
      const run = runBulk(options(path, join(dir, 'out.xlsx')));
      await expect(run, path).rejects.toThrow(BulkError);
      const message = await run.catch((error: Error) => error.message);
      expect(message).toContain(path);
      expect(message).toContain('Nothing was sent');
      expect(message).not.toMatch(/SECRET|0x[0-9a-f]{4}|\uFFFD/i);
    }
    expect(server.sandbox.stats().requests).toBe(0);
  });

  it('a workbook cut short is refused before exceljs reads it: no copy of its sheets is left behind', async () => {
    const { dir, server } = at;
    const whole = join(dir, 'whole.xlsx');
    await leadsWorkbook(whole);
    const bytes = readFileSync(whole);
    await withOwnTempDir(dir, async (temp) => {
      for (const share of [0.3, 0.6, 0.9, 0.999]) {
        const cut = join(dir, `cut-${share}.xlsx`);
        writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * share)));
        await expect(runBulk(options(cut, join(dir, 'out.xlsx'))), String(share)).rejects.toThrow(
          /is not a readable Excel workbook: its zip structure is damaged or cut short\. Nothing was sent\./,
        );
      }
      expect(readdirSync(temp)).toEqual([]);
    });
    expect(server.sandbox.stats().requests).toBe(0);
  });

  it('a sheet that breaks off mid-way stops the run there, and says after which row', async () => {
    const { dir, server } = at;
    const made = join(dir, 'made.xlsx');
    const inPath = join(dir, 'broken.xlsx');
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Leads');
    sheet.addRow(['Name', 'Phone']);
    for (let i = 0; i < 3000; i++) sheet.addRow([`Zoë ${i}`, phone(i % 40)]);
    await workbook.xlsx.writeFile(made);
    // Row 2,500's element misnamed: its closing tag no longer matches, as in a damaged file.
    repack(made, inPath, [], {
      'xl/worksheets/sheet1.xml': (xml) => xml.replace('<row r="2500"', '<rox r="2500"'),
    });
    const summary = await runBulk(options(inPath, join(dir, 'out.xlsx')));
    expect(summary.completed).toBe(false);
    expect(summary.inputError).toMatch(
      /broken\.xlsx breaks off after row \d+: a part of it is not well-formed XML\.$/,
    );
    const after = Number(/after row (\d+)/.exec(summary.inputError ?? '')?.[1]);
    expect(after).toBeGreaterThan(1);
    expect(after).toBeLessThan(2500);
    expect(server.sandbox.stats().transactions).toBeLessThanOrEqual(40);
  });

  it('xlsx to csv: the fields as text (numbers as their digits, dates as ISO 8601)', async () => {
    const { dir } = at;
    const inPath = join(dir, 'leads.xlsx');
    const outPath = join(dir, 'leads.csv');
    await leadsWorkbook(inPath);
    const summary = await runBulk(options(inPath, outPath));
    expect(summary).toMatchObject({ completed: true, ok: 4 });
    const rows = parse(readFileSync(outPath), { bom: true, relax_column_count: true }) as string[][];
    expect(rows[0]).toEqual(outputHeader(op, HEADER, outputColumns(op)));
    expect(rows.slice(1).map((row) => row.slice(0, HEADER.length))).toEqual([
      ['José Ñúñez', phone(1), '02134', '1990-05-17', '10', 'TRUE'],
      ['Zoë', phone(2), '90210', '2024-01-02T13:45:00', '3', 'FALSE'],
      ['Åsa Öberg', '00442079460000', '00501', '1990-05-17', 'Åsa Öberg!', 'TRUE'],
      ['Chloé', phone(1), '02134', '', '', ''],
      ['', '', '', '', '', ''],
      ['François', phone(3), '10001', '2024-01-02T13:45:00', '8', 'FALSE'],
    ]);
    expect(rows[1]?.at(-1)).toMatch(/^ok/);
  });

  it('csv to xlsx: every field a text cell (leading zeros kept), the output columns after them', async () => {
    const { dir } = at;
    const inPath = join(dir, 'leads.csv');
    const outPath = join(dir, 'leads.xlsx');
    writeFileSync(inPath, `name,phone,zip\nJosé Ñúñez,${phone(1)},02134\nZoë,0044 20 7946 0000,501\n`);
    const summary = await runBulk(options(inPath, outPath));
    expect(summary).toMatchObject({ completed: true, ok: 1, invalid: 1 });
    const output = (await readWorkbook(outPath)).worksheets[0] as Worksheet;
    expect(output.name).toBe('Enriched');
    expect((output.getRow(1).values as unknown[]).slice(1)).toEqual(
      outputHeader(op, ['name', 'phone', 'zip'], outputColumns(op)),
    );
    for (const [address, value] of [
      ['A2', 'José Ñúñez'],
      ['B2', phone(1)],
      ['C2', '02134'],
      ['A3', 'Zoë'],
      ['B3', '0044 20 7946 0000'],
      ['C3', '501'],
    ]) {
      expect(output.getCell(address as string)).toMatchObject({ type: ExcelJS.ValueType.String, value });
    }
    expect(output.getCell(2, 3 + outputColumns(op).length + 1).value).toMatch(/^ok/);
  });

  it('accents survive however the workbook is cut into chunks (exceljs alone turns a few into U+FFFD)', async () => {
    const { dir } = at;
    const inPath = join(dir, 'many.xlsx');
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Names');
    sheet.addRow(['Name', 'Phone', 'Note']);
    for (let i = 0; i < 20_000; i++) sheet.addRow([`José Ñúñez ${i}`, phone(i % 50), `Zoë ${i} 中文`]);
    await workbook.xlsx.writeFile(inPath);
    expect(statSync(inPath).size).toBeGreaterThan(100_000);
    const source = await openSource(inPath);
    let rows = 0;
    let broken = 0;
    let bytes = 0;
    for (let batch = await source.nextBatch(); batch; batch = await source.nextBatch()) {
      rows += batch.records.length;
      for (const record of batch.records) if (record.join('').includes('\uFFFD')) broken++;
      expect(batch.bytes).toBeGreaterThanOrEqual(bytes);
      bytes = batch.bytes;
    }
    source.close();
    expect({ rows, broken, bytes }).toEqual({ rows: 20_000, broken: 0, bytes: statSync(inPath).size });
  });
});

describe('Excel workbooks, answers with fields not as documented', () => {
  const extraFields = useSandboxServer({ misbehave: ['extra-fields'] });

  function oddOptions(inPath: string, outName: string, windowRows?: number): BulkOptions {
    const { dir } = at;
    const odd = extraFields.server;
    const base = options(inPath, join(dir, outName));
    return {
      ...base,
      cachePath: join(dir, 'odd-cache.jsonl'),
      bases: { baseUrl: odd.url, baseUrlV3: odd.url, sandbox: true },
      allExtras: true,
      ...(windowRows ? { windowRows } : {}),
    };
  }

  it("the extra columns go before status and a long row's own cells after it, through the window and the spill alike", async () => {
    const { dir } = at;
    const inPath = join(dir, 'leads.xlsx');
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Leads');
    sheet.addRow(['Name', 'Phone', 'Since']);
    for (let i = 0; i < 30; i++) {
      const row = sheet.addRow([`Zoë ${i}`, i % 2 ? Number(phone(i % 6)) : phone(i % 6), BORN]);
      row.getCell(3).numFmt = 'yyyy-mm-dd';
    }
    // Row 5 is long: two cells past the header, a number and text.
    sheet.getCell('D5').value = 42;
    sheet.getCell('E5').value = 'past';
    await workbook.xlsx.writeFile(inPath);

    const small = await runBulk(oddOptions(inPath, 'small.xlsx', 2));
    const large = await runBulk(oddOptions(inPath, 'large.xlsx'));
    expect([small.completed, large.completed]).toEqual([true, true]);
    expect(small).toMatchObject({ rows: 30, ok: 29, invalid: 1 });
    expect(small.extraColumns.length).toBeGreaterThan(0);

    const values = async (name: string) => {
      const out = (await readWorkbook(join(dir, name))).worksheets[0] as Worksheet;
      const rows: unknown[][] = [];
      out.eachRow({ includeEmpty: true }, (row) => {
        rows.push((row.values as unknown[]).slice(1).map((v) => (v instanceof Date ? v.getTime() : v)));
      });
      return rows;
    };
    const rows = await values('small.xlsx');
    expect(rows).toEqual(await values('large.xlsx'));
    const header = rows[0] as string[];
    const documented = outputHeader(op, ['Name', 'Phone', 'Since'], outputColumns(op));
    expect(header.slice(0, documented.length - 1)).toEqual(documented.slice(0, -1));
    expect(header.slice(documented.length - 1, -1)).toEqual(small.extraColumns);
    expect(header.at(-1)).toBe('status');
    const statusAt = header.length - 1;
    const input = (await readWorkbook(inPath)).worksheets[0] as Worksheet;
    const output = (await readWorkbook(join(dir, 'small.xlsx'))).worksheets[0] as Worksheet;
    for (let r = 2; r <= 31; r++) {
      const row = rows[r - 1] as unknown[];
      for (let c = 1; c <= 3; c++) expect(cellOf(output.getCell(r, c))).toEqual(cellOf(input.getCell(r, c)));
      if (r === 5) {
        expect(row[statusAt]).toMatch(/^invalid: the row has 5 fields/);
        expect(row.slice(statusAt + 1)).toEqual(['42', 'past']);
      } else {
        expect(row[statusAt]).toMatch(/^ok \(\d+ fields not as documented\)$/);
        expect(row.length).toBeLessThanOrEqual(statusAt + 1);
      }
    }
  });
});
