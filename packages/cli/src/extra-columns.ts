// Fields an answer carries that the API description does not list become extra output columns,
// after the documented ones and before `status`. Which ones exist is known only once every answer
// is in, but the output is written row by row from the start; so each row's extra fields go to a
// side file (one JSON line per row, empty when none) and, if any answer had any, a last pass adds
// their columns to the output. When the service answers as described (the usual case) the side
// file is deleted and the output is not touched again.
import { once } from 'node:events';
import { createReadStream, createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify';

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

  /** Called once per output row, in order. */
  add(
    extra: Readonly<Record<string, string>> | undefined,
    scrub: (text: string) => string,
  ): Promise<void> | void {
    let line = '';
    if (extra && Object.keys(extra).length > 0) {
      for (const name of Object.keys(extra)) this.names.add(name);
      line = scrub(JSON.stringify(extra));
    }
    if (!this.file.write(`${line}\n`)) return once(this.file, 'drain').then(() => undefined);
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
  async merge(source: string, target: string, rename: (name: string) => string): Promise<void> {
    const names = [...this.names];
    const rows = createReadStream(source).pipe(parse({ relax_column_count: true, skip_empty_lines: false }));
    const lines = createInterface({
      input: createReadStream(this.sidePath),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    const lineIterator = lines[Symbol.asyncIterator]();
    const out = stringify();
    const file = createWriteStream(target);
    out.pipe(file);
    let header = true;
    for await (const row of rows as AsyncIterable<string[]>) {
      const status = row.pop() ?? '';
      if (header) {
        out.write([...row, ...names.map(rename), status]);
        header = false;
      } else {
        const next = await lineIterator.next();
        const text = next.done ? '' : next.value;
        const extra = text === '' ? {} : (JSON.parse(text) as Record<string, string>);
        if (!out.write([...row, ...names.map((n) => extra[n] ?? ''), status])) await once(out, 'drain');
      }
    }
    lines.close();
    out.end();
    await finished(file);
  }
}
