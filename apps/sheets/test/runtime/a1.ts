// A1 notation: column letters, ranges as boxes.

export function columnNumber(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

export function columnLetters(column: number): string {
  let n = column;
  let out = '';
  while (n > 0) {
    const rest = (n - 1) % 26;
    out = String.fromCharCode(65 + rest) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

export interface Box {
  readonly row: number;
  readonly column: number;
  readonly numRows: number;
  readonly numColumns: number;
}

/** "B2", "B2:D10", "A2:A" (to the last row), with or without $; no sheet name. */
export function parseA1(a1: string, maxRows: number): Box {
  const m = /^\$?([A-Za-z]{1,3})\$?(\d+)(?::\$?([A-Za-z]{1,3})\$?(\d*))?$/.exec(a1.trim());
  if (!m) throw new Error(`Range not found: ${a1}`);
  const column = columnNumber(m[1] as string);
  const row = Number(m[2]);
  const lastColumn = m[3] ? columnNumber(m[3]) : column;
  const lastRow = m[3] === undefined ? row : m[4] ? Number(m[4]) : maxRows;
  return {
    row: Math.min(row, lastRow),
    column: Math.min(column, lastColumn),
    numRows: Math.abs(lastRow - row) + 1,
    numColumns: Math.abs(lastColumn - column) + 1,
  };
}

export function a1Of(box: Box): string {
  const first = `${columnLetters(box.column)}${box.row}`;
  if (box.numRows === 1 && box.numColumns === 1) return first;
  return `${first}:${columnLetters(box.column + box.numColumns - 1)}${box.row + box.numRows - 1}`;
}
