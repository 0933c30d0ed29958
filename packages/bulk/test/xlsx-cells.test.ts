// How a workbook's cells read as text for planning: what a person sees in the cell.
import { describe, expect, it } from 'vitest';
import { textOf } from '../src/formats/xlsx-cells.js';

describe('a cell as text', () => {
  it('a number as its digits; a ZIP formatted with leading zeros as it shows', () => {
    expect(textOf(5551234567)).toBe('5551234567');
    expect(textOf({ n: 2134, z: '00000' })).toBe('02134');
    expect(textOf({ n: 21341234, z: '00000-0000' })).toBe('02134-1234');
    expect(textOf({ n: 2134, z: '#,##0' })).toBe('2134');
    expect(textOf({ n: 1.5, z: '00000' })).toBe('1.5');
  });

  it('a date as ISO 8601, a formula as its cached value, text as it is', () => {
    expect(textOf({ d: '2024-03-05T00:00:00.000Z', z: 'm/d/yyyy' })).toBe('2024-03-05');
    expect(textOf({ f: 'A1+1', r: 2 })).toBe('2');
    expect(textOf('02134')).toBe('02134');
    expect(textOf(null)).toBe('');
  });
});
