// Where the answers a formula shows came from, row by row: the formula's arguments read as Sheets
// passes them, each row's request looked up among the kept answers (cache, then the hidden sheet)
// with when it was bought. Freeze results writes these as notes before the formula becomes values
// (the values alone would no longer say it), and the sidebar shows one for the selected cell. Many
// formulas at once (1,000 filled down) are read from one read of their sheet and looked up in one
// pass. Answers are looked up under this user's base URLs; a formula uses the spreadsheet owner's,
// so a user whose settings differ sees "no kept answer".
import { type Operation, operationUrl, planRow } from '@enrich/core/universal';
import { documentCache } from '../answers/document-cache.js';
import { answerId } from '../answers/paid-answer.js';
import { keptAnswers } from '../answers/pending.js';
import { inputRows } from '../formulas/custom-function.js';
import { literal, parseCall, REF } from '../formulas/formula-text.js';
import { asCoreSettings, userSettings } from '../key/settings.js';
import { NOTE_PREFIX, otherService, provenanceNote } from './note.js';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** Said when a formula's row has no kept answer to tell of. */
export const NO_KEPT_ANSWER = `${NOTE_PREFIX}no kept answer for this row (not bought yet, or bought under other settings).`;

/** A sheet's values read once, for the arguments of many formulas. */
function gridReader(sheet: Sheet): (arg: string) => unknown {
  let grid: unknown[][] | undefined;
  return (arg) => {
    const ref = REF.exec(arg);
    if (!ref) return literal(arg, sheet);
    if (arg.includes('!')) {
      const range = sheet.getParent().getRange(arg);
      return range.getNumRows() === 1 && range.getNumColumns() === 1 ? range.getValue() : range.getValues();
    }
    grid ??= sheet.getDataRange().getValues();
    const column = columnNumber(ref[3] ?? 'A');
    const row = Number(ref[4]);
    const lastColumn = ref[5] ? columnNumber(ref[5]) : column;
    // An open range (A2:A) runs to the sheet's last row with data: past it, cells are empty anyway.
    const lastRow = ref[5] === undefined ? row : ref[6] ? Number(ref[6]) : grid.length;
    const cell = (r: number, c: number) => grid?.[r - 1]?.[c - 1] ?? '';
    if (lastRow === row && lastColumn === column) return cell(row, column);
    return Array.from({ length: Math.max(1, lastRow - row + 1) }, (_, r) =>
      Array.from({ length: lastColumn - column + 1 }, (_, c) => cell(row + r, column + c)),
    );
  };
}

function columnNumber(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

interface Rows {
  readonly op: Operation;
  /** Answer id per row ('' for a row without a request), header row included. */
  readonly ids: string[];
}

/**
 * One note per row of the area each formula fills (its header row included: ''), '' where a row
 * has no kept answer; undefined for a formula that is not the add-on's or cannot be read.
 */
export function formulaNotes(
  sheet: Sheet,
  formulas: readonly { readonly formula: string; readonly rows: number }[],
): (string[] | undefined)[] {
  const read = gridReader(sheet);
  const settings = asCoreSettings(userSettings());
  const all: (Rows | undefined)[] = formulas.map(({ formula, rows }) => {
    const call = parseCall(formula);
    const target = call ? operationUrl(call.spec.op, settings) : undefined;
    if (!call || !target?.ok) return undefined;
    const { spec, args } = call;
    try {
      const inputs = inputRows(spec, args.slice(0, spec.args.length).map(read));
      const header = literal(args[spec.args.length + 1], sheet);
      const withHeader = header === true || (typeof header === 'string' && header.toUpperCase() === 'TRUE');
      const ids = inputs.map((raw) => {
        const plan = planRow(spec.op, raw);
        return plan.kind === 'request' ? answerId(target.url, plan.key) : '';
      });
      return { op: spec.op, ids: (withHeader ? ['', ...ids] : ids).slice(0, rows) };
    } catch {
      return undefined;
    }
  });
  const wanted = [...new Set(all.flatMap((r) => r?.ids ?? []).filter(Boolean))];
  const kept = keptAnswers(documentCache(), wanted, 0);
  return all.map((rows) => {
    if (!rows) return undefined;
    const service = otherService(rows.op, settings);
    return rows.ids.map((id) => {
      const answer = id ? kept.get(id) : undefined;
      return answer ? provenanceNote(rows.op, { paidAt: answer.paidAt, bought: true }, service) : '';
    });
  });
}
