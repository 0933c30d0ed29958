// A workbook with what people put in one, for the tests of what an .xlsx output keeps (this
// package's xlsx-kept.test.ts, and the CLI's as a process): a formula filled down (saved as a shared
// formula), rich text, hyperlinks, merged cells, styles, and sheets before and after the one read.
import ExcelJS, { type Cell, type Workbook, type Worksheet } from 'exceljs';
import { phone } from './sandbox-run.js';

export const HEADER = ['Name', 'Phone', 'Score', 'Double', 'Site', 'Note'];

/**
 * Three sheets, "Leads" in the middle: on it, a header in bold on a fill, a formula in D2 filled
 * down to D5 (a shared formula, with its cached results), a name in rich text, hyperlinks, a
 * merged range over two notes, number formats and a row left out (row 6); around it, a sheet of
 * notes with its own merged title and rich text, and one of totals whose formulas read "Leads".
 */
export async function richWorkbook(path: string): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  const notes = workbook.addWorksheet('Notes');
  notes.getCell('A1').value = 'Read me first';
  notes.mergeCells('A1:C1');
  notes.getCell('A1').font = { bold: true, size: 14 };
  notes.getCell('A2').value = {
    richText: [
      { text: 'Do ' },
      { text: 'not', font: { italic: true, color: { argb: 'FFFF0000' } } },
      { text: ' share' },
    ],
  };
  notes.getCell('B3').value = { formula: 'LEN(A1)', result: 13 };

  const leads = workbook.addWorksheet('Leads');
  leads.addRow(HEADER);
  leads.getRow(1).font = { bold: true };
  leads.getRow(1).fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFDDEEFF' } };
  const rows: [unknown, string | number, number][] = [
    [{ richText: [{ text: 'José', font: { bold: true } }, { text: ' Ñúñez' }] }, phone(1), 10],
    ['Zoë', Number(phone(2)), 2.5],
    ['Åsa', phone(3), 7],
    ['Chloé', phone(1), 0],
  ];
  rows.forEach(([name, tel, score], i) => {
    const r = i + 2;
    leads.getCell(`A${r}`).value = name as ExcelJS.CellValue;
    leads.getCell(`B${r}`).value = tel;
    leads.getCell(`C${r}`).value = score;
    leads.getCell(`C${r}`).numFmt = '0.00';
    leads.getCell(`D${r}`).value =
      r === 2 ? { formula: 'C2*2', result: score * 2 } : { sharedFormula: 'D2', result: score * 2 };
    leads.getCell(`E${r}`).value = { text: `site ${r}`, hyperlink: `https://example.com/lead/${r}` };
  });
  leads.getCell('F2').value = 'one note for two rows';
  leads.mergeCells('F2:F3');
  leads.getCell('F2').alignment = { vertical: 'middle', wrapText: true };
  leads.getCell('B3').border = { bottom: { style: 'thin' } };
  leads.getCell('A7').value = 'François';
  leads.getCell('B7').value = phone(4);
  leads.getColumn(1).width = 24;

  const totals = workbook.addWorksheet('Totals');
  totals.getCell('A1').value = 'Total score';
  totals.getCell('B1').value = { formula: 'SUM(Leads!C2:C7)', result: 19.5 };
  totals.getCell('B1').numFmt = '#,##0.0';
  totals.getCell('A2').value = { text: 'the list', hyperlink: '#Leads!A1' };
  await workbook.xlsx.writeFile(path);
}

export async function readWorkbook(path: string): Promise<Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  return workbook;
}

/** A cell as the test compares it: type, value (rich text, hyperlink, formula and result), formula as Excel shows it, style. */
function cellOf(cell: Cell): unknown {
  return { type: cell.type, value: cell.value, formula: cell.formula, style: cell.style };
}

/**
 * Every cell of the sheet that holds a value or a style, by address (exceljs also hands out empty
 * cells of no style between a row's first cell and its last).
 */
export function cellsOf(sheet: Worksheet, lastColumn = Number.POSITIVE_INFINITY): Map<string, unknown> {
  const cells = new Map<string, unknown>();
  sheet.eachRow({ includeEmpty: true }, (row) => {
    row.eachCell({ includeEmpty: true }, (cell, column) => {
      const bare = cell.type === ExcelJS.ValueType.Null && Object.keys(cell.style).length === 0;
      if (column <= lastColumn && !bare) cells.set(cell.address, cellOf(cell));
    });
  });
  return cells;
}
