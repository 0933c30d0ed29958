// What kind of file an input is: its name says (.xlsx a workbook, .jsonl or .ndjson JSON Lines,
// anything else CSV), and its first bytes must agree. A file that is not what its name says (a
// workbook saved as .csv, an HTML page, a PDF, a JSON array) is refused before anything is spent,
// naming what it looks like and never showing its bytes: read as CSV it would offer its first
// bytes as column names and send its lines as requests.
import { extname } from 'node:path';
import { BulkError } from '../run/bulk-error.js';
import { readFileStart } from './file-start.js';

export type FileKind = 'csv' | 'jsonl' | 'xlsx';

/** The kind a file's name says: by its extension, CSV when it names none of the others. */
export function kindOfName(path: string): FileKind {
  const ext = extname(path).toLowerCase();
  if (ext === '.xlsx' || ext === '.xlsm') return 'xlsx';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  return 'csv';
}

/** The kind a file's first bytes show, for a file with no name (standard input). */
export function kindOfContent(start: Buffer): FileKind {
  const looks = looksLike(start);
  if (looks === 'a zip file (an Excel workbook is one)') return 'xlsx';
  if (looks === 'JSON Lines') return 'jsonl';
  return 'csv';
}

/** The kind of an input: its name's, once its first bytes agree; a BulkError when they do not. */
export function fileKindOf(path: string): FileKind {
  const kind = kindOfName(path);
  let start: Buffer;
  try {
    start = readFileStart(path);
  } catch {
    return kind; // unreadable: opening it says why
  }
  const looks = looksLike(start);
  const says = NAMES[kind];
  const fits =
    kind === 'xlsx'
      ? looks === 'a zip file (an Excel workbook is one)'
      : kind === 'jsonl'
        ? looks === 'JSON Lines' || looks === 'empty'
        : looks === undefined || looks === 'empty';
  if (fits) return kind;
  const hint = HINTS[looks ?? 'text'] ?? '';
  throw new BulkError(
    `${path} is named as ${says} but looks like ${looks ?? 'text that is not JSON'}. Nothing was sent.${hint}`,
  );
}

const NAMES: Record<FileKind, string> = {
  csv: 'a CSV',
  jsonl: 'JSON Lines (.jsonl)',
  xlsx: 'an Excel workbook (.xlsx)',
};

const HINTS: Record<string, string> = {
  'a zip file (an Excel workbook is one)': ' A workbook is read when its name ends in .xlsx.',
  'JSON Lines': ' JSON Lines are read when the name ends in .jsonl or .ndjson.',
  'an Excel 97-2003 workbook (.xls)': ' Save it from Excel as .xlsx or as CSV.',
  'a JSON document (not one object per line)': ' Write one JSON object per line (.jsonl).',
  'an HTML page': ' Save the table as CSV, or export it from where it came.',
  'a gzip-compressed file': ' Decompress it first (gunzip).',
};

/**
 * What the first bytes look like when they are not plain delimited text: undefined for text, the
 * name of what they are otherwise. (UTF-16 text starts with its BOM, so NUL bytes after one are its.)
 */
export function looksLike(start: Buffer): string | undefined {
  if (start.length === 0) return 'empty';
  if (startsWith(start, [0x50, 0x4b, 0x03, 0x04])) return 'a zip file (an Excel workbook is one)';
  if (startsWith(start, [0xd0, 0xcf, 0x11, 0xe0])) return 'an Excel 97-2003 workbook (.xls)';
  if (startsWith(start, [0x25, 0x50, 0x44, 0x46, 0x2d])) return 'a PDF document';
  if (startsWith(start, [0x1f, 0x8b])) return 'a gzip-compressed file';
  const utf16 = startsWith(start, [0xff, 0xfe]) || startsWith(start, [0xfe, 0xff]);
  if (!utf16 && start.includes(0)) return 'a binary file (it holds NUL bytes)';
  const text = start
    .subarray(0, 1024)
    .toString('latin1')
    .replace(/^\u00ef\u00bb\u00bf/, '')
    .trimStart();
  if (/^<(!doctype html|html|head|body|table)\b/i.test(text)) return 'an HTML page';
  if (text.startsWith('{')) return 'JSON Lines';
  if (text.startsWith('[')) return 'a JSON document (not one object per line)';
  return undefined;
}

function startsWith(bytes: Buffer, prefix: readonly number[]): boolean {
  return prefix.every((byte, i) => bytes[i] === byte);
}
