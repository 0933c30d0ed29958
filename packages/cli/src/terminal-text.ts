// Text from the service or a file, made safe to print on a terminal: control characters (which
// could move the cursor, change colours or retitle the window) are shown escaped instead.
export function printable(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters is the point
    /[\u0000-\u001f\u007f-\u009f]/g,
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
