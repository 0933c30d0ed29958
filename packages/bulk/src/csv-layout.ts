// How a CSV file is written, found before it is read so that every character of the user's own
// columns comes out as it went in: its encoding (a BOM says it; else UTF-8 when every byte of the
// file is valid UTF-8, else Windows-1252, which is what Excel on Windows saves as "CSV"), its
// separator (`,` `;` tab `|`: from the header and the first rows), and its line end.
import { isUtf8 } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import { extname } from 'node:path';
import { readFileStart } from './file-start.js';

export type CsvEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';
export type CsvDelimiter = ',' | ';' | '\t' | '|';

export const DELIMITERS: readonly CsvDelimiter[] = [',', ';', '\t', '|'];
export const ENCODINGS: readonly CsvEncoding[] = ['utf-8', 'utf-16le', 'utf-16be', 'windows-1252'];

/** How the input is written; the output keeps its BOM, line end and separator. */
export interface CsvLayout {
  /** The file starts with a byte order mark (UTF-8 or UTF-16). */
  readonly bom: boolean;
  /** The header row's line end. */
  readonly eol: '\n' | '\r\n';
  readonly delimiter: CsvDelimiter;
  readonly encoding: CsvEncoding;
  /** Whether the encoding and the separator were found in the file (true) or given by the user. */
  readonly detected: { readonly encoding: boolean; readonly delimiter: boolean };
}

/** What the user forced (`--encoding`, `--delimiter`); the rest is found in the file. */
export interface LayoutChoice {
  readonly encoding?: CsvEncoding | undefined;
  readonly delimiter?: CsvDelimiter | undefined;
}

export const UTF8_LAYOUT: CsvLayout = {
  bom: false,
  eol: '\n',
  delimiter: ',',
  encoding: 'utf-8',
  detected: { encoding: true, delimiter: true },
};

/** Finds the file's layout (file-kind.ts has already refused a file that is not text). */
export function layoutOf(path: string, choice: LayoutChoice = {}): CsvLayout {
  let start: Buffer;
  try {
    start = readFileStart(path);
  } catch {
    return UTF8_LAYOUT; // unreadable: the stream that follows says why
  }
  const bomEncoding = encodingOfBom(start);
  const encoding = choice.encoding ?? bomEncoding ?? (isUtf8File(path) ? 'utf-8' : 'windows-1252');
  const text = decode(start, encoding);
  const utf16 = encoding === 'utf-16le' || encoding === 'utf-16be';
  const lf = start.indexOf(0x0a);
  const cr = lf - (utf16 ? 2 : 1);
  const delimiter = choice.delimiter ?? (extname(path).toLowerCase() === '.tsv' ? '\t' : delimiterOf(text));
  return {
    bom: bomEncoding !== undefined,
    eol: lf > 0 && cr >= 0 && start[cr] === 0x0d ? '\r\n' : '\n',
    delimiter,
    encoding,
    detected: { encoding: choice.encoding === undefined, delimiter: choice.delimiter === undefined },
  };
}

/**
 * Whether the output starts with a BOM: when the input did, and when it was not UTF-8 (the output
 * is UTF-8 always: it holds every character; the BOM tells Excel so, and its accents come out right).
 */
export function outputHasBom(layout: CsvLayout): boolean {
  return layout.bom || layout.encoding !== 'utf-8';
}

/** "Windows-1252 (detected), ';'-separated": how a summary names the layout. */
export function layoutText(layout: CsvLayout): string {
  const names: Record<CsvEncoding, string> = {
    'utf-8': 'UTF-8',
    'utf-16le': 'UTF-16 LE',
    'utf-16be': 'UTF-16 BE',
    'windows-1252': 'Windows-1252',
  };
  const separators: Record<CsvDelimiter, string> = {
    ',': 'comma',
    ';': 'semicolon',
    '\t': 'tab',
    '|': 'pipe',
  };
  const how = (detected: boolean) => (detected ? 'detected' : 'as set');
  return `${names[layout.encoding]} (${how(layout.detected.encoding)})${layout.bom ? ' with a BOM' : ''}, ${separators[layout.delimiter]}-separated (${how(layout.detected.delimiter)})`;
}

function encodingOfBom(bytes: Buffer): CsvEncoding | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

/**
 * Whether every byte of the file is valid UTF-8: read once, in chunks, before anything is sent. A
 * character cut by a chunk's end is carried to the next chunk. (isUtf8 decodes nothing: a decoder
 * would make a string of each megabyte, and a big file's check would raise the run's peak memory.)
 */
function isUtf8File(path: string): boolean {
  const chunk = Buffer.alloc(1024 * 1024);
  const fd = openSync(path, 'r');
  try {
    let carried = 0;
    for (;;) {
      const read = readSync(fd, chunk, carried, chunk.length - carried, null);
      const total = carried + read;
      if (read === 0) return isUtf8(chunk.subarray(0, total));
      const end = total - cutCharacter(chunk, total);
      if (!isUtf8(chunk.subarray(0, end))) return false;
      chunk.copy(chunk, 0, end, total);
      carried = total - end;
    }
  } finally {
    closeSync(fd);
  }
}

/** How many bytes at the end of bytes[0, total) start a character that continues past it. */
function cutCharacter(bytes: Buffer, total: number): number {
  for (let back = 1; back <= 3 && back <= total; back++) {
    const byte = bytes[total - back] as number;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

// Windows-1252 is Latin-1 but for 0x80-0x9F, where it has letters and signs (€ ‚ ƒ „ … † ‡ ˆ ‰ Š
// ‹ Œ Ž ‘ ’ “ ” • – — ˜ ™ š › œ ž Ÿ). Node's TextDecoder("windows-1252") gives Latin-1's controls
// there, so those 27 are mapped here; the 5 bytes Windows-1252 leaves undefined stay as Latin-1
// has them (U+0081, U+008D, U+008F, U+0090, U+009D), as the WHATWG decoder also does.
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

export function decodeWindows1252(bytes: Buffer): string {
  const latin1 = bytes.toString('latin1');
  return latin1.replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80] as string);
}

function decode(bytes: Buffer, encoding: CsvEncoding): string {
  if (encoding === 'windows-1252') return decodeWindows1252(bytes);
  return new TextDecoder(encoding).decode(bytes);
}

/**
 * The separator the header and the first rows agree on: the candidate found on the header line
 * that appears as often (outside quotes) on each of the next lines, the most often; a comma when
 * none does (a file of one column).
 */
export function delimiterOf(text: string): CsvDelimiter {
  const lines = recordsOf(text, 10);
  const header = lines[0];
  if (header === undefined) return ',';
  let best: CsvDelimiter = ',';
  let bestCount = 0;
  for (const candidate of DELIMITERS) {
    const count = header[candidate] ?? 0;
    if (count === 0) continue;
    const agree = lines.slice(1).every((line) => (line[candidate] ?? 0) === count || isBlank(line));
    if (agree && count > bestCount) {
      best = candidate;
      bestCount = count;
    }
  }
  return best;
}

function isBlank(counts: Partial<Record<CsvDelimiter | 'chars', number>>): boolean {
  return (counts.chars ?? 0) === 0;
}

/** Counts of each candidate outside quotes, per record, for the first `max` complete records. */
function recordsOf(text: string, max: number): Partial<Record<CsvDelimiter | 'chars', number>>[] {
  const records: Partial<Record<CsvDelimiter | 'chars', number>>[] = [];
  let counts: Partial<Record<CsvDelimiter | 'chars', number>> = {};
  let quoted = false;
  for (let i = 0; i < text.length && records.length < max; i++) {
    const c = text[i] as string;
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) {
      if (c === '\r' && text[i + 1] === '\n') i++;
      records.push(counts);
      counts = {};
      continue;
    } else if (!quoted && (DELIMITERS as readonly string[]).includes(c)) {
      counts[c as CsvDelimiter] = (counts[c as CsvDelimiter] ?? 0) + 1;
    }
    if (c !== '\uFEFF') counts.chars = (counts.chars ?? 0) + 1;
  }
  // The text may end mid-record (the first 64 KB of a larger file): that last one is not counted,
  // unless it is the only one (a file of a header alone, with no line end).
  if (records.length === 0 && (counts.chars ?? 0) > 0) records.push(counts);
  return records;
}
