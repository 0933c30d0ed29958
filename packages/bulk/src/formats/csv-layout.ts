// How a CSV file is written, found before it is read so that every character of the user's own
// columns comes out as it went in: its encoding (a BOM says it; else UTF-8 when every byte of the
// file is valid UTF-8, Windows-1252 (what Excel on Windows saves as "CSV") when it has bytes that
// are not and no UTF-8 character at all, and neither, refused, when it has both), its separator
// (`,` `;` tab `|`: from the header and the first rows), and its line end.
import { extname } from 'node:path';
import { BulkError } from '../run/bulk-error.js';
import { readFileStart } from './file-start.js';
import { linesAt, scanUtf8, type Utf8Scan } from './utf8-scan.js';

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

/**
 * Finds the file's layout (file-kind.ts has already refused a file that is not text). A BulkError
 * when the file is UTF-8 but for a few bytes, or is said to be UTF-8 and is not (encodingOf).
 */
export function layoutOf(path: string, choice: LayoutChoice = {}): CsvLayout {
  let start: Buffer;
  try {
    start = readFileStart(path);
  } catch {
    return UTF8_LAYOUT; // unreadable: the stream that follows says why
  }
  const bomEncoding = encodingOfBom(start);
  const encoding = encodingOf(path, choice.encoding, bomEncoding);
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
 * The file's encoding: what the user or a BOM says, else what its bytes show. UTF-8, however it was
 * chosen, is checked over the whole file (utf8-scan.ts), since its decoder would put U+FFFD in place
 * of a byte that is not UTF-8 and the output would lose it without a word. Found, it is:
 * - UTF-8 when every byte is;
 * - Windows-1252 when some bytes are not UTF-8 and no valid multi-byte character is anywhere in the
 *   file (a Latin-1 or Windows-1252 file: its accents are single high bytes);
 * - neither when it has both: refused. Read as Windows-1252, its UTF-8 characters would be mangled
 *   ("ü" as "Ã¼" on every row); read as UTF-8, its bad bytes would be lost. Only the user knows
 *   which it is, and --encoding lets them say.
 * Windows-1252 reads every byte as a character, so it needs no check; UTF-16 is decoded as before.
 */
function encodingOf(
  path: string,
  said: CsvEncoding | undefined,
  bomEncoding: CsvEncoding | undefined,
): CsvEncoding {
  const given = said ?? bomEncoding;
  if (given !== undefined && given !== 'utf-8') return given;
  const scan = scanUtf8(path, bomEncoding === 'utf-8' ? 3 : 0);
  if (scan.firstBad === undefined) return 'utf-8';
  if (given === undefined && scan.firstCharacter === undefined) return 'windows-1252';
  const how =
    given === undefined ? undefined : said !== undefined ? '--encoding utf-8' : 'its byte order mark says so';
  throw new BulkError(notUtf8Message(path, scan, how));
}

/**
 * Why a file is refused, naming the first bad byte by its line (the header is line 1: a line, not a
 * row, since a quoted field may hold line breaks) and its value, never the text around it.
 */
function notUtf8Message(path: string, scan: Utf8Scan, saidUtf8: string | undefined): string {
  const bad = scan.firstBad as NonNullable<Utf8Scan['firstBad']>;
  const [badLine, characterLine] = linesAt(path, [bad.offset, scan.firstCharacter ?? 0]);
  const byte = `0x${bad.byte.toString(16).toUpperCase().padStart(2, '0')}`;
  const one = scan.badPlaces === 1;
  const where = one
    ? `1 place: the byte ${byte} on line ${count(badLine)} (the header is line 1)`
    : `${count(scan.badPlaces)} places, the first the byte ${byte} on line ${count(badLine)} (the header is line 1)`;
  const them = one ? 'that byte' : 'those bytes';
  const lost = `read as UTF-8, ${them} would be lost (${one ? '' : 'each '}replaced by U+FFFD)`;
  const wayOut = `If the file is UTF-8, correct ${them}; if the file is Windows-1252, say --encoding windows-1252.`;
  if (saidUtf8 !== undefined) {
    return `${path} is read as UTF-8 (${saidUtf8}) but is not UTF-8 at ${where}. Nothing was sent: ${lost}. ${wayOut}`;
  }
  const mangled = `read as Windows-1252, its UTF-8 characters (the first on line ${count(characterLine)}) would come out wrong ("ü" as "Ã¼")`;
  return `${path} is UTF-8 except at ${where}. Nothing was sent: ${mangled}, and ${lost}. ${wayOut}`;
}

/** 90,000: a count as the CLI's summaries write one (without toLocaleString's ICU load). */
function count(n: number | undefined): string {
  return String(n ?? 0).replace(/\B(?=(\d{3})+$)/g, ',');
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
