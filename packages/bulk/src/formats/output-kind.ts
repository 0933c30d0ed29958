// The format of an output file, from its name (the extension says the kind, as for the input).
import { csvFormat } from './csv-format.js';
import { kindOfName } from './file-kind.js';
import { jsonlFormat } from './jsonl-format.js';
import type { OutputShape, RowFormat } from './row-format.js';
import { xlsxFormat } from './xlsx-format.js';

export function formatFor(outPath: string, shape: OutputShape): RowFormat {
  switch (kindOfName(outPath)) {
    case 'xlsx':
      return xlsxFormat(shape);
    case 'jsonl':
      return jsonlFormat(shape);
    default:
      return csvFormat(outPath, shape);
  }
}
