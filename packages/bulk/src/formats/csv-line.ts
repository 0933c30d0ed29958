// One CSV line, written exactly as csv-stringify writes it with its default options (so that the
// output stays byte for byte what it was), without its per-field option handling: a field is quoted
// only when it holds a comma, a double quote, a line feed or a carriage return, and a double quote
// inside is doubled. Every field here is a string.
const NEEDS_QUOTES = /[",\n\r]/;

export function csvField(value: string): string {
  if (!NEEDS_QUOTES.test(value)) return value;
  return `"${value.replaceAll('"', '""')}"`;
}

/** The fields joined by commas, without the line ending. */
export function csvFields(fields: readonly string[]): string {
  let line = '';
  for (let i = 0; i < fields.length; i++) {
    if (i > 0) line += ',';
    line += csvField(fields[i] as string);
  }
  return line;
}

/** What makes a field need quotes with the other separators. */
const NEEDS_QUOTES_WITH: Readonly<Record<string, RegExp>> = {
  ';': /[";\n\r]/,
  '\t': /["\t\n\r]/,
  '|': /["|\n\r]/,
};

/**
 * The same for another separator (`;`, tab, `|`: the input's own), quoting a field that holds it.
 * The comma's is the functions above, unchanged.
 */
export function csvLineFor(delimiter: string): {
  field: (value: string) => string;
  fields: (values: readonly string[]) => string;
} {
  const needsQuotes = NEEDS_QUOTES_WITH[delimiter];
  if (needsQuotes === undefined) return { field: csvField, fields: csvFields };
  const field = (value: string) => (needsQuotes.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
  return { field, fields: (values) => values.map(field).join(delimiter) };
}
