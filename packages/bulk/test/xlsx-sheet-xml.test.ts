// A sheet's XML taken apart as a stream (xlsx-sheet-xml.ts): the same pieces however the text is
// cut into chunks (a tag, a "</row>", a "<sheetData" split across two), rows and cells with and
// without their numbers, what XML allows and Excel never writes (a CDATA section holding "</row>",
// a comment between rows), and the hints that an output with more columns leaves out.
import { describe, expect, it } from 'vitest';
import { columnLetters, type SheetPiece, sheetPieces, sheetRow } from '../src/formats/xlsx-sheet-xml.js';

const SHEET =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="m"><dimension ref="A1:C4"/>' +
  '<cols><col min="1" max="1" width="20"/></cols><sheetData>' +
  '<row r="1" spans="1:3"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>\n' +
  '<row r="2" spans="1:3" ht="20" customHeight="1"><c r="A2" t="inlineStr"><is><t><![CDATA[a </row> b]]></t></is></c><c r="C2"><f t="shared" ref="C2:C3" si="0">A2*2</f><v>4</v></c></row>' +
  '<!-- a comment --><row r="3"><c r="C3"><f t="shared" si="0"/><v>6</v></c></row>' +
  '<row r="4" s="2" customFormat="1"/><row><c s="1"/><c t="b"><v>1</v></c><extLst><ext uri="x"/></extLst></row>' +
  '</sheetData><mergeCells count="1"><mergeCell ref="A3:B3"/></mergeCells></worksheet>';

async function* chunks(text: string, size: number): AsyncGenerator<string> {
  for (let at = 0; at < text.length; at += size) yield text.slice(at, at + size);
}

/** The pieces, the `after` pieces joined (how many there are depends on the chunks). */
async function piecesOf(text: AsyncIterable<string>): Promise<SheetPiece[]> {
  const pieces: SheetPiece[] = [];
  for await (const piece of sheetPieces(text)) {
    const last = pieces.at(-1);
    if (piece.kind === 'after' && last?.kind === 'after')
      pieces[pieces.length - 1] = { kind: 'after', text: last.text + piece.text };
    else pieces.push(piece);
  }
  return pieces;
}

describe("a sheet's XML taken apart", () => {
  it('gives the same pieces however it is cut into chunks', async () => {
    const whole = await piecesOf(chunks(SHEET, SHEET.length));
    expect(whole.map((p) => p.kind)).toEqual(['before', 'row', 'row', 'other', 'row', 'row', 'row', 'after']);
    expect(whole[0]).toEqual({
      kind: 'before',
      text: '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="m"><cols><col min="1" max="1" width="20"/></cols><sheetData>',
    });
    expect(whole.at(-1)).toEqual({
      kind: 'after',
      text: '</sheetData><mergeCells count="1"><mergeCell ref="A3:B3"/></mergeCells></worksheet>',
    });
    // Everything but the dimension is there, in order.
    const text = whole.map((p) => (p.kind === 'row' ? p.xml : p.text)).join('');
    expect(text.replace(/\n/g, '')).toBe(SHEET.replace('<dimension ref="A1:C4"/>', '').replace(/\n/g, ''));
    for (const size of [1, 2, 3, 5, 7, 11, 16, 17, 64, 100]) {
      expect(await piecesOf(chunks(SHEET, size)), `chunks of ${size}`).toEqual(whole);
    }
  });

  it('takes a row apart: its number, its cells with their columns, what follows them; spans left out', () => {
    const row2 = sheetRow(
      '<row r="2" spans="1:3" ht="20"><c r="A2" t="inlineStr"><is><t><![CDATA[</c>]]></t></is></c><c r="C2"><v>4</v></c></row>',
      1,
    );
    expect(row2).toEqual({
      number: 2,
      open: '<row r="2" ht="20"',
      cells: [
        { column: 1, xml: '<c r="A2" t="inlineStr"><is><t><![CDATA[</c>]]></t></is></c>' },
        { column: 3, xml: '<c r="C2"><v>4</v></c>' },
      ],
      rest: '',
    });
    // No numbers: the row after the one before, each cell in the column after the one before.
    expect(sheetRow('<row><c s="1"/><c t="b"><v>1</v></c><extLst><ext uri="x"/></extLst></row>', 4)).toEqual({
      number: 5,
      open: '<row',
      cells: [
        { column: 1, xml: '<c s="1"/>' },
        { column: 2, xml: '<c t="b"><v>1</v></c>' },
      ],
      rest: '<extLst><ext uri="x"/></extLst>',
    });
    expect(sheetRow('<row r="4" s="2" customFormat="1"/>', 3)).toEqual({
      number: 4,
      open: '<row r="4" s="2" customFormat="1"',
      cells: [],
      rest: '',
    });
  });

  it('an empty <sheetData/> opens for the rows an output adds', async () => {
    const pieces = await piecesOf(chunks('<worksheet><sheetData/><pageMargins/></worksheet>', 4));
    expect(pieces).toEqual([
      { kind: 'before', text: '<worksheet><sheetData>' },
      { kind: 'after', text: '</sheetData><pageMargins/></worksheet>' },
    ]);
  });

  it('names columns as Excel does', () => {
    expect([1, 26, 27, 52, 703, 16384].map(columnLetters)).toEqual(['A', 'Z', 'AA', 'AZ', 'AAA', 'XFD']);
  });
});
