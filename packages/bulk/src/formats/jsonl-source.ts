// JSON Lines as a row source: one JSON object per line, UTF-8. The columns are the keys of every
// object in the file, in the order first seen; a row's fields are its values as text: a string's
// text, anything else as the line writes it (1.50 stays 1.50, a 19-digit id keeps every digit, an
// array keeps its spacing), null or a missing key empty. Each line is also kept as it was (its original), so that a JSON Lines output keeps
// it byte for byte. The whole file is read once before anything is sent, to find its keys and to
// refuse a line that is not an object (with its line number, never its text), as a CSV's encoding
// is checked before anything is sent. A blank line is a blank row.
import { createReadStream } from 'node:fs';
import { BulkError } from '../run/bulk-error.js';
import type { RowBatch, RowSource } from './row-source.js';

const BATCH_ROWS = 256;

export async function openJsonlSource(path: string, sizeBytes: number): Promise<RowSource> {
  const keys = new Map<string, number>();
  for await (const { text, number } of lines(path)) {
    const object = objectOf(text, number, path);
    if (object) for (const key of Object.keys(object)) if (!keys.has(key)) keys.set(key, keys.size);
  }
  if (keys.size === 0) {
    throw new BulkError(
      `${path} has no JSON objects with keys: it needs objects whose keys name the columns`,
    );
  }
  const header = [...keys.keys()];
  const reader = lines(path)[Symbol.asyncIterator]();
  let bytes = 0;
  return {
    kind: 'jsonl',
    header,
    found: 'JSON Lines (UTF-8)',
    layout: undefined,
    sizeBytes,
    async nextBatch(): Promise<RowBatch | undefined> {
      const records: string[][] = [];
      const originals: string[] = [];
      let firstRow = 0;
      while (records.length < BATCH_ROWS) {
        const next = await reader.next();
        if (next.done) break;
        const { text, number } = next.value;
        if (records.length === 0) firstRow = number;
        bytes = next.value.bytes;
        const object = objectOf(text, number, path);
        const values = object ? topLevelValues(text) : undefined;
        records.push(header.map((key) => textOf(values?.get(key))));
        originals.push(object ? text : '{}');
      }
      if (records.length === 0) return undefined;
      return { records, originals, firstRow, bytes };
    },
    close: () => void reader.return?.(undefined),
  };
}

/** The line's object; undefined for a blank line; a BulkError naming the line otherwise. */
function objectOf(text: string, number: number, path: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the line, which is the user's data.
    throw new BulkError(
      `${path} line ${number} is not valid JSON. Nothing was sent. Mend the line, or remove it.`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BulkError(
      `${path} line ${number} is not a JSON object. Nothing was sent. Each line must be one object.`,
    );
  }
  return value as Record<string, unknown>;
}

/** A value's text as a field: a string's own text, null empty, anything else as written. */
function textOf(raw: string | undefined): string {
  if (raw === undefined || raw === 'null') return '';
  return raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
}

/**
 * The object's keys and each value's text as the line writes it (a later key of the same name
 * wins, as in JSON.parse). Only for a line JSON.parse has read as an object: it trusts the syntax.
 */
export function topLevelValues(line: string): Map<string, string> {
  const values = new Map<string, string>();
  let i = line.indexOf('{') + 1;
  const skipSpace = () => {
    while (i < line.length && ' \t\r\n'.includes(line[i] as string)) i++;
  };
  const endOfString = (from: number) => {
    let j = from + 1;
    while (line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
    return j + 1;
  };
  for (;;) {
    skipSpace();
    if (line[i] !== '"') return values; // "}": the end of an object (empty, or after its last value)
    const keyEnd = endOfString(i);
    const key = JSON.parse(line.slice(i, keyEnd)) as string;
    i = keyEnd;
    skipSpace();
    i++; // the colon
    skipSpace();
    const start = i;
    let depth = 0;
    for (; i < line.length; i++) {
      const c = line[i];
      if (c === '"') i = endOfString(i) - 1;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (depth === 0) break;
        depth--;
      } else if (c === ',' && depth === 0) break;
    }
    values.set(key, line.slice(start, i).trimEnd());
    if (line[i] === ',') i++;
  }
}

/**
 * The file's lines (without their line ends and a leading BOM), numbered from 1, with the bytes
 * read so far; a last empty line (after the final line end) is not one. Refuses text that is not
 * UTF-8, which JSON must be.
 */
async function* lines(path: string): AsyncGenerator<{ text: string; number: number; bytes: number }> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let carried = '';
  let number = 0;
  let bytes = 0;
  const stream = createReadStream(path);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      let text: string;
      try {
        text = carried + decoder.decode(chunk, { stream: true });
      } catch {
        throw new BulkError(`${path} is not UTF-8, which JSON Lines must be. Nothing was sent.`);
      }
      if (number === 0 && text.startsWith('\uFEFF')) text = text.slice(1);
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        number++;
        const line = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
        yield { text: line, number, bytes };
        start = end + 1;
      }
      carried = text.slice(start);
      if (number === 0 && carried.startsWith('\uFEFF')) carried = carried.slice(1);
    }
    if (carried !== '') yield { text: carried.replace(/\r$/, ''), number: number + 1, bytes };
  } finally {
    stream.destroy();
  }
}
