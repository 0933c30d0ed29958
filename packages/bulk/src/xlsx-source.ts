// PLACEHOLDER: an Excel workbook as a row source (being written).
import { BulkError } from './bulk-error.js';
import type { RowSource } from './row-source.js';

export async function openXlsxSource(path: string, _sizeBytes: number, _sheet?: string): Promise<RowSource> {
  throw new BulkError(`${path}: workbooks are not read yet`);
}
