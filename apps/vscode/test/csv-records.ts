// A CSV's records as RFC 4180 writes them (quoted cells, doubled quotes, commas and line breaks
// inside quotes), for tests that count what an output file holds without the engine's own reader.
export function csvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  const endCell = () => {
    record.push(cell);
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') endCell();
    else if (c === '\n') {
      endCell();
      records.push(record);
      record = [];
    } else if (c !== '\r') cell += c;
  }
  if (cell !== '' || record.length > 0) {
    endCell();
    records.push(record);
  }
  return records;
}

/** How many ok rows of an output hold each value of `column` (what a run's breakdown counts). */
export function okValueCounts(text: string, column: string): Map<string, number> {
  const [header = [], ...rows] = csvRecords(text.replace(/^\uFEFF/, ''));
  const at = header.indexOf(column);
  const status = header.indexOf('status');
  const counts = new Map<string, number>();
  for (const row of rows) {
    if (row[status] !== 'ok') continue;
    const value = row[at] ?? '';
    counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return counts;
}
