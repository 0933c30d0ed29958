// Text made safe to print on a terminal. Whatever comes from outside (a service's field names and
// values, a CSV's header, an error's words) could hold escape sequences that retitle the window
// (ESC ] 0 ; ... BEL), clear the screen (ESC [ 2 J), move the cursor or rewrite what was printed.
// terminalText is applied where text leaves for stdout and stderr (main.ts wraps both streams), so
// every message, table, warning and summary goes through it; printable is for one value inside a
// line (a table cell, a column name in a list), where a line break or a tab is not meant either.
// JSON output is data: it is written with every control character escaped (jsonText), so the
// terminal filter finds nothing to take out of it.

// The sequences, removed whole: a string command (OSC, DCS, SOS, PM, APC, 7-bit ESC ] or 8-bit
// U+009D...) up to its terminator (BEL, ESC \ or ST); a CSI (ESC [ or U+009B) with its parameters,
// intermediates and final byte; any other escape (ESC, intermediates, a final byte: ESC c, ESC ( B).
const SEQUENCES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control sequences is the point
  /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d-\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)|(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;
// What is left of the controls after that (an unterminated string command's introducer among
// them): C0 but tab and line feed, DEL, C1.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** The text with escape sequences and control characters taken out (tabs and line breaks kept). */
export function terminalText(text: string): string {
  return text.replace(SEQUENCES, '').replace(CONTROLS, '');
}

/** One value from outside, for inside a line: terminalText, with tabs and line breaks shown as \t, \n. */
export function printable(text: string): string {
  return terminalText(text).replace(/[\t\n]/g, (c) => (c === '\t' ? '\\t' : '\\n'));
}

/**
 * A value as one line of JSON, for stdout: JSON.stringify escapes C0 controls; DEL and C1 controls
 * (which it leaves raw, and some terminals obey) are escaped too. The same JSON value.
 */
export function jsonText(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Two columns, the first padded to its widest entry. */
export function twoColumns(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(0, ...rows.map(([name]) => name.length));
  return rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`.trimEnd()).join('\n');
}

/**
 * A whole number with thousands separators, as en-US writes it (1,000,000). Not toLocaleString:
 * its first call loads the ICU number formats, about 17 ms, and the closing summary of every run
 * paid that after the last answer.
 */
export function grouped(value: number): string {
  if (!Number.isSafeInteger(value)) return String(value);
  const sign = value < 0 ? '-' : '';
  return sign + String(Math.abs(value)).replace(/\B(?=(\d{3})+$)/g, ',');
}
