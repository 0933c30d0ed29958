// The one mapping from an output record to a flat row of columns, used by the Sheets add-on, the
// CLI and the VS Code extension alike. Group leaves keep their own names (`FName`, `City`,
// `IDVerifyScore`); repeated groups are prefixed (`Vehicle2.Make`).
import type { Operation } from './catalog.js';
import type { LeafField, OutputShape } from './outputs.js';
import type { LeafValue, OutputRecord } from './response.js';

interface Column {
  readonly name: string;
  readonly group: string | undefined;
  readonly leaf: string;
  readonly field: LeafField;
}

const columnCache = new WeakMap<OutputShape, readonly Column[]>();

function columnsOf(shape: OutputShape): readonly Column[] {
  const cached = columnCache.get(shape);
  if (cached) return cached;
  const columns: Column[] = [];
  for (const [name, field] of Object.entries(shape)) {
    if (field.type !== 'object') {
      columns.push({ name, group: undefined, leaf: name, field });
      continue;
    }
    for (const [leaf, leafField] of Object.entries(field.fields)) {
      const column = field.columns === 'prefixed' ? `${name}.${leaf}` : leaf;
      columns.push({ name: column, group: name, leaf, field: leafField });
    }
  }
  columnCache.set(shape, columns);
  return columns;
}

/** Every output column of an operation, in the order the API description lists the fields. */
export function outputColumns(op: Operation): readonly string[] {
  return columnsOf(op.output).map((c) => c.name);
}

/**
 * The record as one row of values, one per column (all columns, or the chosen ones in their order).
 * A row is for display, where null and "" look alike, so a null (Phone Lookup's AptType) becomes "".
 */
export function flattenRecord(op: Operation, record: OutputRecord, columns?: readonly string[]): LeafValue[] {
  const all = columnsOf(op.output);
  const chosen = columns ? columns.map((name) => findColumn(all, name)) : all;
  return chosen.map((column) => {
    if (!column) return '';
    const top = record[column.group ?? column.leaf];
    if (column.group === undefined) return (top as LeafValue | undefined) ?? '';
    if (top === null || typeof top !== 'object') return '';
    return top[column.leaf] ?? '';
  });
}

/** The description of one output column (`phone_type`, `Vehicle2.Make`), matched without regard to case. */
export function outputField(op: Operation, column: string): LeafField | undefined {
  return findColumn(columnsOf(op.output), column)?.field;
}

export type ColumnCheck =
  | { readonly ok: true; readonly columns: string[] }
  | { readonly ok: false; readonly message: string };

/**
 * Parses a user's column list ("FName, city,Vehicle2.Make"), matching names without regard to case,
 * and names the ones that do not exist.
 */
export function chooseColumns(op: Operation, list: string | readonly string[] | undefined): ColumnCheck {
  const names = (typeof list === 'string' ? list.split(',') : (list ?? []))
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) return { ok: true, columns: [...op.defaultColumns] };
  const all = columnsOf(op.output);
  const columns: string[] = [];
  const unknown: string[] = [];
  for (const name of names) {
    const column = findColumn(all, name);
    if (column) columns.push(column.name);
    else unknown.push(name);
  }
  if (unknown.length > 0) {
    return {
      ok: false,
      message: `${op.title} has no column ${unknown.map((u) => `"${u}"`).join(', ')}; its columns are ${all.map((c) => c.name).join(', ')}`,
    };
  }
  return { ok: true, columns };
}

function findColumn(all: readonly Column[], name: string): Column | undefined {
  return all.find((c) => c.name === name) ?? all.find((c) => c.name.toLowerCase() === name.toLowerCase());
}
