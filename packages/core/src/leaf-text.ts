// When text from the service stands for a number or a flag: the one rule every client converts by.
// Only text that converts without loss does ("12", "-3", "0.5", "true"); "12.0", "012", " 12" and
// "1e3" stay text, since writing the number back would not give the text the service sent; so do
// "NaN" and "Infinity", which JSON (and so the answer cache) cannot hold as numbers.

/** The number the text is, when it converts without loss; else undefined. */
export function numberFromText(text: string): number | undefined {
  const number = Number(text);
  return Number.isFinite(number) && String(number) === text ? number : undefined;
}

/** The flag the text is ("true" or "false"); else undefined. */
export function flagFromText(text: string): boolean | undefined {
  return text === 'true' ? true : text === 'false' ? false : undefined;
}
