// PLACEHOLDER: the output as an Excel workbook (being written).
import type { OutputShape, RowFormat } from './row-format.js';

export function xlsxFormat(_shape: OutputShape): RowFormat {
  throw new Error('workbooks are not written yet');
}
