// Parsers for the flag values that are more than a word: durations, rates, --map pairs, a file's
// encoding and separator.
import { type CsvDelimiter, type CsvEncoding, ENCODINGS } from '@enrich/bulk';
import { CommandError, EXIT } from './exit-codes.js';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "30d", "12h", "90m", "45s", "0" or "forever". */
export function parseDuration(text: string, flag: string): number {
  const t = text.trim().toLowerCase();
  if (t === 'forever' || t === 'inf' || t === 'infinity') return Number.POSITIVE_INFINITY;
  const match = /^(\d+(?:\.\d+)?)\s*([smhd]?)$/.exec(t);
  if (!match) throw usage(`${flag} takes a duration such as 30d, 12h, 90m, 45s or forever; got "${text}"`);
  return Number(match[1]) * (UNIT_MS[match[2] || 's'] ?? 1000);
}

/**
 * --timeout: seconds, whole or not ("30", "0.5"), greater than 0 and at most `maxSeconds`; in
 * milliseconds. (A deadline of 0 or less would be none at all, and one past a timer's range,
 * about 24.8 days, would fire at once.)
 */
export function parseTimeout(text: string, flag = '--timeout', maxSeconds = 3600): number {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (!/^\d{1,7}(\.\d{1,3})?$/.test(trimmed) || !(value > 0) || value > maxSeconds) {
    throw usage(
      `${flag} takes a number of seconds greater than 0 and at most ${maxSeconds} (0.5 is half a second); got "${text}"`,
    );
  }
  return Math.round(value * 1000);
}

/** "10", "10/s", "600/m": requests per second. */
export function parseRate(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(?:\/\s*(s|sec|second|m|min|minute))?$/.exec(text.trim().toLowerCase());
  const value = match ? Number(match[1]) : Number.NaN;
  if (!match || !(value > 0))
    throw usage(`--max-rate takes requests per second such as 10/s or 600/m; got "${text}"`);
  return match[2]?.startsWith('m') ? value / 60 : value;
}

export function parseWhole(
  text: string,
  flag: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
  orElse = '',
): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < min || value > max) {
    throw usage(
      `${flag} takes a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}${orElse ? ` ${orElse}` : ''}; got "${text}"`,
    );
  }
  return value;
}

/** --map Phone="Mobile #" (repeatable): API field to input column. */
export function parseMap(pairs: readonly string[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0 || at === pair.length - 1)
      throw usage(`--map takes Field=Column, e.g. --map Phone="Mobile #"; got "${pair}"`);
    map[pair.slice(0, at).trim()] = pair.slice(at + 1);
  }
  return map;
}

function usage(message: string): CommandError {
  return new CommandError(message, EXIT.usage);
}

const DELIMITER_NAMES: Readonly<Record<string, CsvDelimiter>> = {
  ',': ',',
  comma: ',',
  ';': ';',
  semicolon: ';',
  tab: '\t',
  '\\t': '\t',
  '\t': '\t',
  '|': '|',
  pipe: '|',
};

/** --delimiter: `,` `;` `tab` `|` (or their names); found in the file when not given. */
export function parseDelimiter(text: string): CsvDelimiter {
  const delimiter = DELIMITER_NAMES[text.trim().toLowerCase()] ?? DELIMITER_NAMES[text];
  if (delimiter === undefined) {
    throw usage(`--delimiter takes one of , ; tab | (or comma, semicolon, pipe); got "${text}"`);
  }
  return delimiter;
}

/** --encoding: utf-8, utf-16le, utf-16be or windows-1252 (cp1252); found in the file when not given. */
export function parseEncoding(text: string): CsvEncoding {
  const name = text
    .trim()
    .toLowerCase()
    .replace(/^utf8$/, 'utf-8')
    .replace(/^(cp1252|win1252)$/, 'windows-1252');
  const encoding = ENCODINGS.find((e) => e === name);
  if (encoding === undefined) throw usage(`--encoding takes one of ${ENCODINGS.join(', ')}; got "${text}"`);
  return encoding;
}
