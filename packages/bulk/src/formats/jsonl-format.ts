// The output as JSON Lines: each row one object on one line, UTF-8, "\n" after each. A JSON Lines
// input's line is kept as it was, byte for byte up to its closing brace, and the answer's columns
// are added after its own keys: flat, named and written as the CSV output's columns are (text, as
// the CSV holds it), then "status". A row of another kind of input becomes an object of its
// columns by header name (a name that repeats gets " (2)", " (3)"), fields past the header under
// "(past the header)". One line per row, in input order, as for every format.
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';
import type { ExtraRows } from '../run/extra-columns.js';
import type { RowResult } from '../run/row-result.js';
import { readFileStart } from './file-start.js';
import type { OutputShape, RowFormat } from './row-format.js';

const PAST_THE_HEADER = '(past the header)';

export function jsonlFormat(shape: OutputShape): RowFormat {
  const width = shape.inputHeader.length;
  const keys = uniqueNames(shape.inputHeader).map((name) => `${JSON.stringify(name)}:`);
  const columnKeys = shape.header.slice(width, -1).map((name) => `${JSON.stringify(name)}:`);
  const statusKey = JSON.stringify(shape.header.at(-1) ?? 'status');
  const keepOriginal = shape.inputKind === 'jsonl';
  return {
    kind: 'jsonl',
    linesAreTheFile: true,
    header: () => '',
    fields(fields, original) {
      if (keepOriginal && original !== undefined) {
        const open = original.trimEnd().slice(0, -1).trimEnd(); // without its closing brace
        return open.endsWith('{') ? open : `${open},`;
      }
      let text = '{';
      for (let i = 0; i < width; i++) text += `${keys[i]}${JSON.stringify(fields[i] ?? '')},`;
      return text;
    },
    result(result: RowResult) {
      let tail = '';
      for (let i = 0; i < columnKeys.length; i++)
        tail += `${columnKeys[i]}${JSON.stringify(result.cells[i] ?? '')},`;
      tail += `${statusKey}:${JSON.stringify(result.status)}`;
      if (result.trailing) tail += `,${JSON.stringify(PAST_THE_HEADER)}:${JSON.stringify(result.trailing)}`;
      return `${tail}}\n`;
    },
    finish: (lines, target, extras) => mergeExtras(lines, target, extras, statusKey),
    async isOurs(path) {
      const first = readFileStart(path).toString('utf8').split('\n', 1)[0] ?? '';
      try {
        const object = JSON.parse(first) as unknown;
        return typeof object === 'object' && object !== null && JSON.parse(statusKey) in object;
      } catch {
        return false;
      }
    },
  };
}

/** The names as keys of one object: a name that repeats gets " (2)", " (3)". */
function uniqueNames(names: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((name) => {
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    return count === 1 ? name : `${name} (${count})`;
  });
}

/**
 * The lines with the extra fields added before status. Status is the last key we write (before a
 * long row's fields), and `,"status":` cannot occur inside a JSON string (its quotes would be
 * escaped), so its last occurrence is where ours starts.
 */
async function mergeExtras(source: string, target: string, extras: ExtraRows | undefined, statusKey: string) {
  const lines = createInterface({ input: createReadStream(source), crlfDelay: Number.POSITIVE_INFINITY });
  const file = createWriteStream(target);
  const keys = (extras?.headerNames ?? []).map((name) => JSON.stringify(name));
  let index = 0;
  for await (const line of lines) {
    const extra = await extras?.at(index);
    index++;
    let text = line;
    if (extra) {
      const at = line.lastIndexOf(`${statusKey}:`);
      let added = '';
      extras?.names.forEach((name, i) => {
        if (name in extra) added += `${keys[i]}:${JSON.stringify(extra[name])},`;
      });
      text = `${line.slice(0, at)}${added}${line.slice(at)}`;
    }
    if (!file.write(`${text}\n`)) await once(file, 'drain');
  }
  file.end();
  await finished(file);
}
