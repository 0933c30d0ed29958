// How a file is written, found before it is read: encodings (a BOM, valid UTF-8, else
// Windows-1252), separators (from the header and the first rows), line ends; binary files refused.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeWindows1252, delimiterOf, layoutOf, layoutText } from '../src/formats/csv-layout.js';
import { fileKindOf } from '../src/formats/file-kind.js';
import { useTempDir } from './fixtures.js';

const at = useTempDir();
const file = (name: string, bytes: Buffer | string) => {
  const path = join(at.dir, name);
  writeFileSync(path, bytes);
  return path;
};

describe('the separator', () => {
  it.each([
    ['name,phone\nA,1\n', ','],
    ['name;phone;city\nA;1;Paris\nB;2;"Lyon; Rhône"\n', ';'],
    ['name\tphone\nA\t1\n', '\t'],
    ['name|phone\nA|1\n', '|'],
    // A comma inside the values of a semicolon file does not win: the counts must agree per row.
    ['name;amount\nA;1,50\nB;2,75\n', ';'],
    // One column: nothing to agree on.
    ['phone\n5550102030\n', ','],
    ['phone', ','],
  ])('%j is %j-separated', (text, expected) => {
    expect(delimiterOf(text)).toBe(expected);
  });

  it('.tsv means tab, and --delimiter wins over what is found', () => {
    expect(layoutOf(file('a.tsv', 'name,phone\nA,1\n')).delimiter).toBe('\t');
    expect(layoutOf(file('b.csv', 'name;phone\nA;1\n'), { delimiter: '|' }).delimiter).toBe('|');
  });
});

describe('the encoding', () => {
  it('UTF-8 without a BOM when every byte is valid UTF-8, even past the first 64 KB', () => {
    const path = file('utf8.csv', `name\n${'a\n'.repeat(40_000)}José\n`);
    expect(layoutOf(path)).toMatchObject({ encoding: 'utf-8', bom: false });
  });

  it("a character cut by the check's 1 MB chunks is still UTF-8 (é, €, 𝄞 across the boundary)", () => {
    for (const [i, character] of ['é', '€', '𝄞'].entries()) {
      const path = file(`cut-${i}.csv`, `name\n${'a'.repeat(1024 * 1024 - 6)}${character}\n`);
      expect(layoutOf(path).encoding).toBe('utf-8');
    }
  });

  it('Windows-1252 when a byte is not UTF-8, even one far into the file', () => {
    const latin = Buffer.concat([Buffer.from(`name\n${'a\n'.repeat(40_000)}Jos`), Buffer.from([0xe9, 0x0a])]);
    const layout = layoutOf(file('cp1252.csv', latin));
    expect(layout).toMatchObject({ encoding: 'windows-1252', bom: false, detected: { encoding: true } });
    expect(layoutText(layout)).toBe('Windows-1252 (detected), comma-separated (detected)');
  });

  it('a BOM says UTF-8 or UTF-16 (LE, BE); CRLF is seen in each', () => {
    expect(layoutOf(file('bom8.csv', '\uFEFFa,b\r\n1,2\r\n'))).toMatchObject({
      encoding: 'utf-8',
      bom: true,
      eol: '\r\n',
    });
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a;b\r\n1;2\r\n', 'utf16le')]);
    expect(layoutOf(file('le.csv', le))).toMatchObject({ encoding: 'utf-16le', eol: '\r\n', delimiter: ';' });
    const be = Buffer.from('a\tb\r\n', 'utf16le').swap16();
    expect(layoutOf(file('be.csv', Buffer.concat([Buffer.from([0xfe, 0xff]), be])))).toMatchObject({
      encoding: 'utf-16be',
      eol: '\r\n',
      delimiter: '\t',
    });
  });

  it('Windows-1252 decodes 0x80-0x9F as Windows does (€, curly quotes, dashes), not as Latin-1 controls', () => {
    expect(decodeWindows1252(Buffer.from([0x80, 0x93, 0x94, 0x96, 0x97, 0x99, 0xe9, 0xd1, 0xfc]))).toBe(
      '€“”–—™éÑü',
    );
  });

  it('a file that is not what its name says is refused, naming what it looks like, never its bytes', () => {
    const zip = file('leads.csv', Buffer.from('PK\u0003\u0004\u0014\u0000\u0006\u0000'));
    expect(() => fileKindOf(zip)).toThrow(
      /leads\.csv is named as a CSV but looks like a zip file \(an Excel workbook is one\)\. Nothing was sent\. A workbook is read when its name ends in \.xlsx/,
    );
    expect(() => fileKindOf(file('nul.csv', Buffer.from('a\u0000b\n')))).toThrow(
      /looks like a binary file \(it holds NUL bytes\)/,
    );
    const page = file('report.csv', '<!DOCTYPE html><html><body><table><tr><td>555</td></tr></table>');
    expect(() => fileKindOf(page)).toThrow(
      /report\.csv is named as a CSV but looks like an HTML page\. Nothing was sent/,
    );
    expect(() => fileKindOf(file('x.csv', '{"phone":"5551234567"}\n'))).toThrow(
      /looks like JSON Lines.*\.jsonl or \.ndjson/,
    );
    expect(() => fileKindOf(file('x.jsonl', 'phone\n5551234567\n'))).toThrow(
      /named as JSON Lines \(\.jsonl\) but looks like text that is not JSON/,
    );
    expect(() => fileKindOf(file('x.xlsx', 'phone\n5551234567\n'))).toThrow(
      /named as an Excel workbook \(\.xlsx\) but looks like text/,
    );
    expect(() =>
      fileKindOf(file('old.csv', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))),
    ).toThrow(
      /an Excel 97-2003 workbook \(\.xls\)\. Nothing was sent\. Save it from Excel as \.xlsx or as CSV/,
    );
    expect(() => fileKindOf(file('a.csv', Buffer.from('%PDF-1.7\n')))).toThrow(/looks like a PDF document/);
    // UTF-16 text holds NUL bytes: after its BOM they are its own.
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('phone\r\n555\r\n', 'utf16le')]);
    expect(fileKindOf(file('u16.csv', utf16))).toBe('csv');
    expect(fileKindOf(file('ok.jsonl', '{"a":1}\n'))).toBe('jsonl');
  });
});
