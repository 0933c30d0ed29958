// Fields an answer carries that the API description does not list become extra output columns,
// after the documented ones and before `status`. Which ones exist is known only once every answer
// is in, but the output is written row by row from the start; so the extra fields of the rows that
// have any go to a side file (a line per such row: its index among the output rows, a tab, its
// fields as JSON; nothing for the others) and, if any answer had any, the output's format writes
// the file again with their columns (RowFormat.finish). When the service answers as described (the
// usual case) the side file is deleted and the output is not touched again.
import { createReadStream, createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';

/** The extra fields of the output's rows, read in row order while the output is written again. */
export interface ExtraRows {
  /** Every extra field name seen, in the order first seen. */
  readonly names: readonly string[];
  /** The same names as the output's header writes them (clear of the input's columns). */
  readonly headerNames: readonly string[];
  /** The extra fields of data row `index` (counted from 0; asked in increasing order). */
  at(index: number): Promise<Readonly<Record<string, string>> | undefined>;
}

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

  /** The side file read back in order, after close(); `rename` names a column clear of the input's. */
  rows(rename: (name: string) => string): ExtraRows & { close(): void } {
    const lines = createInterface({
      input: createReadStream(this.sidePath),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    const iterator = lines[Symbol.asyncIterator]();
    let next: Promise<{ index: number; extra: Record<string, string> } | undefined> | undefined;
    const names = [...this.names];
    return {
      names,
      headerNames: names.map(rename),
      async at(index) {
        next ??= nextExtra(iterator);
        const found = await next;
        if (found === undefined || found.index !== index) return undefined;
        next = undefined;
        return found.extra;
      },
      close: () => lines.close(),
    };
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
