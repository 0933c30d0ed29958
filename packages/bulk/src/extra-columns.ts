// Fields an answer carries that the API description does not list become extra output columns,
// after the documented ones and before `status`. Which ones exist is known only once every answer
// is in, but the output is written row by row from the start; so the extra fields of the rows that
// have any go to a side file (a line per such row: its index among the output rows, a tab, its
// fields as JSON; nothing for the others) and, if any answer had any, a last pass adds their
// columns to the output. When the service answers as described (the usual case) the side
// file is deleted and the output is not touched again.
import { once } from 'node:events';
import { createReadStream, createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify';
import { type CsvLayout, outputHasBom } from './csv-layout.js';

export class ExtraColumns {
  /** Every extra field name seen, in the order first seen. */
  readonly names = new Set<string>();
  private readonly file: WriteStream;
  readonly sidePath: string;

  constructor(outputTempPath: string, onError: (error: Error) => void) {
    this.sidePath = `${outputTempPath}.extra`;
    this.file = createWriteStream(this.sidePath);
    this.file.on('error', onError);
  }

  /** Called for the output rows that have extra fields, in order; `index` counts data rows from 0. */
  add(index: number, extra: Readonly<Record<string, string>>, scrub: (text: string) => string): void {
    const names = Object.keys(extra);
    if (names.length === 0) return;
    for (const name of names) this.names.add(name);
    this.file.write(`${index}\t${scrub(JSON.stringify(extra))}\n`);
  }

  async close(): Promise<void> {
    this.file.end();
    await finished(this.file).catch(() => undefined);
  }

  discard(): void {
    rmSync(this.sidePath, { force: true });
  }

  /**
   * Writes `target` from the output in `source` with the extra columns inserted before the last
   * column (status). `rename` names a column so that it does not clash with the header's.
   */
  async merge(
    source: string,
    target: string,
    rename: (name: string) => string,
    layout: CsvLayout,
  ): Promise<void> {
    const names = [...this.names];
    const rows = createReadStream(source).pipe(
      parse({ bom: true, delimiter: layout.delimiter, relax_column_count: true, skip_empty_lines: false }),
    );
    const lines = createInterface({
      input: createReadStream(this.sidePath),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    const lineIterator = lines[Symbol.asyncIterator]();
    const out = stringify({
      bom: outputHasBom(layout),
      delimiter: layout.delimiter,
      record_delimiter: layout.eol,
    });
    const file = createWriteStream(target);
    out.pipe(file);
    let header = true;
    let index = 0;
    let next = await nextExtra(lineIterator);
    for await (const row of rows as AsyncIterable<string[]>) {
      const status = row.pop() ?? '';
      if (header) {
        out.write([...row, ...names.map(rename), status]);
        header = false;
        continue;
      }
      let extra: Record<string, string> = {};
      if (next && next.index === index) {
        extra = next.extra;
        next = await nextExtra(lineIterator);
      }
      index++;
      if (!out.write([...row, ...names.map((n) => extra[n] ?? ''), status])) await once(out, 'drain');
    }
    lines.close();
    out.end();
    await finished(file);
  }
}

async function nextExtra(
  lines: AsyncIterator<string>,
): Promise<{ index: number; extra: Record<string, string> } | undefined> {
  const next = await lines.next();
  if (next.done) return undefined;
  const tab = next.value.indexOf('\t');
  return {
    index: Number(next.value.slice(0, tab)),
    extra: JSON.parse(next.value.slice(tab + 1)) as Record<string, string>,
  };
}
