// "Freeze results": replaces this add-on's formulas in the selection with the values they show, so
// that later recalculations (which the add-on cannot prevent) never ask, or pay, again. A formula's
// results spill beyond its own cell and vanish once the formula is gone, so the whole area it fills
// is read first and written back as values, as text where text was shown (leading zeros, and API
// values that look like formulas stay text).
import { chooseColumns } from '@enrich/core/universal';
import { type FunctionSpec, findFunction } from '../../spec.js';
import { activeSpreadsheet } from '../active-spreadsheet.js';
import { HIDDEN_SHEET_NAME } from '../answers/hidden-sheet.js';
import { type CellValue, TEXT_FORMAT, toCell } from '../cells/values.js';

export interface FreezeReport {
  readonly formulas: number;
  readonly cells: number;
  /** Formulas left alone because they show an error or their area could not be worked out. */
  readonly skipped: number;
}

export function freezeSelection(): FreezeReport {
  const range = SpreadsheetApp.getActiveRange();
  if (!range) return { formulas: 0, cells: 0, skipped: 0 };
  return freezeRange(range);
}

/** Freeze results "in the whole spreadsheet": every sheet's used area but the hidden sheet of answers. */
export function freezeSpreadsheet(): FreezeReport {
  let total: FreezeReport = { formulas: 0, cells: 0, skipped: 0 };
  for (const sheet of activeSpreadsheet().getSheets()) {
    if (sheet.getName() === HIDDEN_SHEET_NAME) continue;
    const report = freezeRange(sheet.getDataRange());
    total = {
      formulas: total.formulas + report.formulas,
      cells: total.cells + report.cells,
      skipped: total.skipped + report.skipped,
    };
  }
  return total;
}

function freezeRange(range: GoogleAppsScript.Spreadsheet.Range): FreezeReport {
  const sheet = range.getSheet();
  const formulas = range.getFormulas();
  const values = range.getValues();
  const areas: { row: number; column: number; rows: number; columns: number }[] = [];
  let skipped = 0;
  formulas.forEach((line, r) => {
    line.forEach((formula, c) => {
      if (!formula) return;
      const call = parseCall(formula);
      if (!call) return;
      const shown = values[r]?.[c];
      const size =
        call && !(typeof shown === 'string' && shown.startsWith('#')) ? areaOf(call, sheet) : undefined;
      if (!size) {
        skipped++;
        return;
      }
      areas.push({ row: range.getRow() + r, column: range.getColumn() + c, ...size });
    });
  });
  // Read every area before writing any, so that no write changes what another area shows.
  const snapshots = areas.map((area) => {
    const target = sheet.getRange(area.row, area.column, area.rows, area.columns);
    return { target, values: target.getValues(), formats: target.getNumberFormats() };
  });
  let cells = 0;
  for (const { target, values: shown, formats } of snapshots) {
    const out: CellValue[][] = shown.map((row) => row.map((v) => toCell(v as string | number | boolean)));
    const textFormats = formats.map((row, r) =>
      row.map((format, c) => (typeof shown[r]?.[c] === 'string' ? TEXT_FORMAT : format)),
    );
    target.setNumberFormats(textFormats);
    target.setValues(out);
    cells += out.length * (out[0]?.length ?? 0);
  }
  return { formulas: areas.length, cells, skipped };
}

interface Call {
  readonly spec: FunctionSpec;
  readonly args: readonly string[];
}

/** `=PHONELOOKUP(A2:A10, "FName,City", TRUE)` → the function and its argument texts. */
export function parseCall(formula: string): Call | undefined {
  const match = /^=\s*([A-Za-z]+)\s*\(([\s\S]*)\)\s*$/.exec(formula.trim());
  if (!match) return undefined;
  const spec = findFunction(match[1] ?? '');
  if (!spec) return undefined;
  return { spec, args: splitArgs(match[2] ?? '') };
}

function splitArgs(text: string): string[] {
  const args: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    if (!quoted && ch === '(') depth++;
    if (!quoted && ch === ')') depth--;
    if (!quoted && depth === 0 && (ch === ',' || ch === ';')) {
      args.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim() !== '' || args.length > 0) args.push(current.trim());
  return args;
}

const REF =
  /^(?:(?:'((?:[^']|'')+)'|([A-Za-z0-9_.]+))!)?\$?([A-Za-z]{1,3})\$?(\d+)(?::\$?([A-Za-z]{1,3})\$?(\d*))?$/;

/** The rows and columns a call's result fills, from its arguments as Sheets would pass them. */
function areaOf(
  call: Call,
  sheet: GoogleAppsScript.Spreadsheet.Sheet,
): { rows: number; columns: number } | undefined {
  const { spec, args } = call;
  let rows = 1;
  for (const arg of args.slice(0, spec.args.length)) {
    const ref = REF.exec(arg);
    if (!ref) continue;
    const refSheet =
      ref[1] || ref[2]
        ? sheet.getParent().getSheetByName((ref[1] ?? ref[2] ?? '').replace(/''/g, "'"))
        : sheet;
    if (!refSheet) return undefined;
    const first = Number(ref[4]);
    const last = ref[5] === undefined ? first : ref[6] ? Number(ref[6]) : refSheet.getMaxRows();
    rows = Math.max(rows, last - first + 1);
  }
  const fields = literal(args[spec.args.length], sheet);
  const header = literal(args[spec.args.length + 1], sheet);
  const columns = chooseColumns(spec.op, fields === '' || fields === undefined ? undefined : String(fields));
  if (!columns.ok) return undefined;
  const withHeader = header === true || (typeof header === 'string' && header.toUpperCase() === 'TRUE');
  return { rows: rows + (withHeader ? 1 : 0), columns: columns.columns.length };
}

/** An argument's value: a string or boolean literal, or the value of a single-cell reference. */
function literal(arg: string | undefined, sheet: GoogleAppsScript.Spreadsheet.Sheet): unknown {
  if (arg === undefined || arg === '') return undefined;
  const quoted = /^"((?:[^"]|"")*)"$/.exec(arg);
  if (quoted) return (quoted[1] ?? '').replace(/""/g, '"');
  if (/^(TRUE|FALSE)$/i.test(arg)) return arg.toUpperCase() === 'TRUE';
  if (REF.test(arg)) {
    return arg.includes('!') ? sheet.getParent().getRange(arg).getValue() : sheet.getRange(arg).getValue();
  }
  return arg;
}
