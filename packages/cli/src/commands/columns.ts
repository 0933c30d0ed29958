// --fields: which output columns to write or show.
import { chooseColumns, type Operation, outputColumns } from '@enrich/core';
import { CommandError, EXIT } from '../exit-codes.js';

export interface ChosenColumns {
  readonly columns: readonly string[];
  /** Names that are not documented columns: fields an answer may carry beyond the description. */
  readonly extras: readonly string[];
  /** Every column, and every extra field that turns up. */
  readonly all: boolean;
}

/**
 * Documented columns (any case), "all", "default", or names the description does not have, which
 * are taken as extra fields the service may send (DID, telcoName, ...).
 */
export function chosenColumns(op: Operation, list: string): ChosenColumns {
  const t = list.trim().toLowerCase();
  if (t === 'all') return { columns: outputColumns(op), extras: [], all: true };
  if (t === 'default') return { columns: op.defaultColumns, extras: [], all: false };
  const columns: string[] = [];
  const extras: string[] = [];
  for (const name of list.split(',').map((n) => n.trim())) {
    if (name === '') continue;
    const one = chooseColumns(op, name);
    if (one.ok) columns.push(...one.columns);
    else if (/^[A-Za-z_][\w.-]{0,63}$/.test(name)) {
      columns.push(name);
      extras.push(name);
    } else throw new CommandError(one.message, EXIT.usage);
  }
  if (columns.length === 0) throw new CommandError('--fields names no column', EXIT.usage);
  return { columns, extras, all: false };
}
