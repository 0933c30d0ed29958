// The text of the add-on's formulas as typed in a cell: which function, its argument texts, the
// values Sheets passes for them, and the area its results fill. Freeze results, the provenance of a
// formula's rows and entering formulas again after the allowance is raised all read formulas so.
import { chooseColumns } from '@enrich/core/universal';
import { type FunctionSpec, findFunction } from '../../spec.js';

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

export const REF =
  /^(?:(?:'((?:[^']|'')+)'|([A-Za-z0-9_.]+))!)?\$?([A-Za-z]{1,3})\$?(\d+)(?::\$?([A-Za-z]{1,3})\$?(\d*))?$/;

/** The rows and columns a call's result fills, from its arguments as Sheets would pass them. */
export function areaOf(
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
export function literal(arg: string | undefined, sheet: GoogleAppsScript.Spreadsheet.Sheet): unknown {
  if (arg === undefined || arg === '') return undefined;
  const quoted = /^"((?:[^"]|"")*)"$/.exec(arg);
  if (quoted) return (quoted[1] ?? '').replace(/""/g, '"');
  if (/^(TRUE|FALSE)$/i.test(arg)) return arg.toUpperCase() === 'TRUE';
  if (REF.test(arg)) {
    return arg.includes('!') ? sheet.getParent().getRange(arg).getValue() : sheet.getRange(arg).getValue();
  }
  return arg;
}
