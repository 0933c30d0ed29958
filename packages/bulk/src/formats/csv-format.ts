// The output as CSV: the input's separator, line end and BOM when the input was a CSV (UTF-8
// always; see outputHasBom), else commas, with a BOM when the input was a workbook (so that Excel
// reads the accents right) and none after JSON Lines (for the tools of a pipeline).
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { extname } from 'node:path';
import { finished } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import { stringify } from 'csv-stringify';
import type { ExtraRows } from '../run/extra-columns.js';
import type { RowResult } from '../run/row-result.js';
import { type CsvLayout, outputHasBom, UTF8_LAYOUT } from './csv-layout.js';
import { csvLineFor } from './csv-line.js';
import { readFileStart } from './file-start.js';
import type { OutputShape, RowFormat } from './row-format.js';

export function csvFormat(outPath: string, shape: OutputShape): RowFormat {
  const layout = outputLayout(outPath, shape);
  const { delimiter, eol } = layout;
  const line = csvLineFor(delimiter);
  const width = shape.inputHeader.length;
  const statusColumn = shape.header.at(-1) ?? 'status';
  return {
    kind: 'csv',
    linesAreTheFile: true,
    header: () => `${outputHasBom(layout) ? '\uFEFF' : ''}${line.fields(shape.header)}${eol}`,
    fields(fields) {
      if (fields.length === width) return line.fields(fields);
      // Short rows are padded with empty fields; a long row's fields past the header go after its
      // status (result() writes them), where they do not shift the output columns.
      let text = '';
      for (let i = 0; i < width; i++) {
        if (i > 0) text += delimiter;
        text += line.field(fields[i] ?? '');
      }
      return text;
    },
    result(result: RowResult) {
      let tail = '';
      for (const cell of result.cells) tail += `${delimiter}${line.field(cell)}`;
      tail += `${delimiter}${line.field(result.status)}`;
      for (const field of result.trailing ?? []) tail += `${delimiter}${line.field(field)}`;
      return `${tail}${eol}`;
    },
    finish: (lines, target, extras) => mergeExtras(lines, target, extras, layout),
    async isOurs(path) {
      // The first record only (a header cell may hold a line break); a cut at 64 KB is not ours.
      const [found] = parseSync(readFileStart(path), {
        bom: true,
        delimiter,
        relax_column_count: true,
        to: 1,
      }) as string[][];
      if (!found?.slice(width).includes(statusColumn)) return false;
      return shape.inputHeader.every((column, i) => found[i] === column);
    },
  };
}

function outputLayout(outPath: string, shape: OutputShape): CsvLayout {
  if (shape.layout) return shape.layout;
  return {
    ...UTF8_LAYOUT,
    delimiter: extname(outPath).toLowerCase() === '.tsv' ? '\t' : ',',
    bom: shape.inputKind === 'xlsx',
  };
}

/** The output with the extra columns inserted before status. */
async function mergeExtras(
  source: string,
  target: string,
  extras: ExtraRows | undefined,
  layout: CsvLayout,
): Promise<void> {
  const rows = createReadStream(source).pipe(
    parse({ bom: true, delimiter: layout.delimiter, relax_column_count: true, skip_empty_lines: false }),
  );
  const out = stringify({
    bom: outputHasBom(layout),
    delimiter: layout.delimiter,
    record_delimiter: layout.eol,
  });
  const file = createWriteStream(target);
  out.pipe(file);
  // Where status is in every row: last in the header; a long row's own fields follow it.
  let statusAt: number | undefined;
  let index = 0;
  const names = extras?.names ?? [];
  for await (const row of rows as AsyncIterable<string[]>) {
    if (statusAt === undefined) {
      statusAt = row.length - 1;
      out.write([...row.slice(0, statusAt), ...(extras?.headerNames ?? []), ...row.slice(statusAt)]);
      continue;
    }
    const extra = (await extras?.at(index)) ?? {};
    index++;
    const cells = [...row.slice(0, statusAt), ...names.map((n) => extra[n] ?? ''), ...row.slice(statusAt)];
    if (!out.write(cells)) await once(out, 'drain');
  }
  out.end();
  await finished(file);
}
