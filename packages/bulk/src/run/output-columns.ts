// The output's header: the input's own columns as the user wrote them (README: "Names in the
// header"), then the columns the run adds, then status.
import type { Operation } from '@enrich/core';
import { neutralise } from './row-result.js';

export function outputHeader(op: Operation, header: readonly string[], columns: readonly string[]): string[] {
  const name = columnNamer(op, header);
  return [...header, ...columns.map(name), name('status')];
}

// The name of a column the run adds: through core's formula rule (an extra column is named by the
// service, and a name like =HYPERLINK(...) or @x must not become a formula in the header); then, as
// an output column named like an input column would make two columns of one name, set apart.
export function columnNamer(op: Operation, header: readonly string[]): (column: string) => string {
  const taken = new Set(header.map((h) => h.toLowerCase()));
  return (column) => {
    const name = neutralise(column);
    return taken.has(name.toLowerCase()) ? `${name} (${op.id})` : name;
  };
}
