// Reading a CSV as a stream of rows, and planning each row against the operation: which column
// feeds which field, and whether the row is blank, invalid (and why), or a request (and which).
import { createReadStream, statSync } from 'node:fs';
import {
  type CleanInput,
  type ColumnMapping,
  mapColumns,
  type Operation,
  planRow,
  rowInput,
  validate,
} from '@enrich/core';
import { parse } from 'csv-parse';
import { BoundedMap } from './bounded-map.js';
import { CommandError, EXIT } from './exit-codes.js';

export interface CsvRow {
  readonly fields: string[];
  /** Bytes of the file read so far (a little ahead of this row), for progress. */
  readonly bytes: number;
  /** The row's number as a spreadsheet shows it: the header is row 1. */
  readonly row: number;
}

export interface OpenedCsv {
  readonly header: readonly string[];
  readonly mapping: ColumnMapping;
  readonly sizeBytes: number;
  readonly rows: AsyncIterator<CsvRow>;
  close(): void;
}

/** Opens the file, reads the header and maps its columns; stops (before anything is spent) if it cannot. */
export async function openCsv(
  op: Operation,
  path: string,
  overrides: Readonly<Record<string, string>>,
): Promise<OpenedCsv> {
  let sizeBytes: number;
  try {
    sizeBytes = statSync(path).size;
  } catch (error) {
    throw new CommandError(`Cannot read ${path}: ${(error as Error).message}`, EXIT.usage);
  }
  const file = createReadStream(path);
  const parser = file.pipe(
    // Blank lines are kept as blank rows: in a one-column file they are the empty cells, and every
    // line in gets its line out. (No `info` option: it costs more than the parsing itself.)
    parse({ bom: true, relax_column_count: true, skip_empty_lines: false }),
  );
  const records = parser[Symbol.asyncIterator]() as AsyncIterator<string[]>;
  let first: IteratorResult<string[]>;
  try {
    first = await records.next();
  } catch (error) {
    parser.destroy();
    throw new CommandError(`${path} is not a readable CSV: ${(error as Error).message}`, EXIT.usage);
  }
  if (first.done) {
    throw new CommandError(`${path} is empty: it needs a header row naming its columns`, EXIT.usage);
  }
  const header = first.value;
  const mapping = mapColumns(op, header, overrides);
  if (mapping.problem) {
    parser.destroy();
    throw new CommandError(
      `${path}: ${mapping.problem}. Nothing was sent. Name the column with --map Field=Column (columns: ${header.join(', ')})`,
      EXIT.usage,
    );
  }
  let row = 1;
  const rows: AsyncIterator<CsvRow> = {
    async next() {
      let item: IteratorResult<string[]>;
      try {
        item = await records.next();
      } catch (error) {
        throw new CommandError(`${path} is not a readable CSV: ${(error as Error).message}`, EXIT.usage);
      }
      if (item.done) return { done: true, value: undefined };
      row++;
      return { done: false, value: { fields: item.value, bytes: file.bytesRead, row } };
    },
  };
  return { header, mapping, sizeBytes, rows, close: () => parser.destroy() };
}

const PLAN_MEMORY = 20_000;

export type PlannedRow =
  | { readonly kind: 'blank'; readonly message: string }
  | { readonly kind: 'invalid'; readonly message: string }
  | { readonly kind: 'request'; readonly key: string; readonly input: CleanInput };

/** Plans rows of a file with this header: blank, invalid (with the reason) or a request. */
export function rowPlanner(op: Operation, header: readonly string[], mapping: ColumnMapping) {
  const empty = validate(op, {});
  const blankMessage = empty.ok ? 'blank row' : `blank row (${empty.message})`;
  const columns = Object.values(mapping.fields);
  // Files repeat values (that is what deduplication is for); checking each spelling once saves
  // most of the per-row work on a large file.
  const planned = new BoundedMap<string, PlannedRow>(PLAN_MEMORY);
  return (fields: readonly string[]): PlannedRow => {
    if (fields.length > header.length) {
      return {
        kind: 'invalid',
        message: `the row has ${fields.length} fields but the header has ${header.length}; the extra fields are not written`,
      };
    }
    let values = columns.length === 1 ? (fields[columns[0] as number] ?? '') : '';
    if (columns.length > 1) for (const index of columns) values += `${fields[index] ?? ''}\u0000`;
    const known = planned.get(values);
    if (known) return known;
    const plan = planRow(op, rowInput(mapping, fields));
    const result: PlannedRow =
      plan.kind === 'empty'
        ? { kind: 'blank', message: blankMessage }
        : plan.kind === 'invalid'
          ? { kind: 'invalid', message: plan.message }
          : { kind: 'request', key: plan.key, input: plan.input as CleanInput };
    planned.set(values, result);
    return result;
  };
}
