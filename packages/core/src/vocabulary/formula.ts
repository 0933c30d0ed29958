// Text that a spreadsheet would read as a formula when a CSV is opened or a value is written to a
// cell (CSV injection), and how to make it inert. The list is OWASP's: = + - @, and tab, carriage
// return and NUL, which some spreadsheets strip before looking at the character after.
const FORMULA_START = /^[=+\-@\t\r\0]/;

/** Whether a spreadsheet could read this text as a formula. */
export function looksLikeFormula(text: string): boolean {
  return FORMULA_START.test(text);
}

/**
 * The text made inert for a spreadsheet: a single quote in front of formula-like text (OWASP's
 * advice; spreadsheets show the text as typed, without the quote). Other text is unchanged.
 */
export function neutraliseFormula(text: string): string {
  return looksLikeFormula(text) ? `'${text}` : text;
}
