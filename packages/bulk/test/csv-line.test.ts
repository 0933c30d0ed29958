// The output's CSV lines must stay byte for byte what csv-stringify (the earlier writer) produced.
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { csvFields } from '../src/formats/csv-line.js';

// A small deterministic generator: fields made of the characters that matter to CSV.
function* fields(count: number): Generator<string[]> {
  const alphabet = ['a', 'Z', '0', ' ', ',', '"', '\n', '\r', '\t', "'", '=', 'é', '😀', ';', '\\'];
  let seed = 42;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  for (let i = 0; i < count; i++) {
    const row: string[] = [];
    const width = 1 + (next() % 6);
    for (let f = 0; f < width; f++) {
      let value = '';
      const length = next() % 8;
      for (let c = 0; c < length; c++) value += alphabet[next() % alphabet.length];
      row.push(value);
    }
    yield row;
  }
}

describe('csvFields', () => {
  it('writes what csv-stringify writes, for 5,000 rows of awkward fields', () => {
    for (const row of fields(5000)) {
      expect(`${csvFields(row)}\n`).toBe(stringify([row]));
    }
  });

  it('quotes commas, quotes and line breaks, and nothing else', () => {
    expect(csvFields(['a', 'b,c', 'say "hi"', 'x\ny', '', ' =1'])).toBe('a,"b,c","say ""hi""","x\ny",, =1');
  });
});
