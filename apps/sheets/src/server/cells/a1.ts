// A1 notation, as the sidebar shows ranges and columns to the user.

/** 1 → A, 27 → AA. */
export function columnLetter(column: number): string {
  let n = column;
  let letters = '';
  while (n > 0) {
    const rest = (n - 1) % 26;
    letters = String.fromCharCode(65 + rest) + letters;
    n = Math.floor((n - 1) / 26);
  }
  return letters;
}

export function rangeA1(row: number, column: number, numRows: number, numColumns: number): string {
  const first = `${columnLetter(column)}${row}`;
  if (numRows === 1 && numColumns === 1) return first;
  return `${first}:${columnLetter(column + numColumns - 1)}${row + numRows - 1}`;
}
