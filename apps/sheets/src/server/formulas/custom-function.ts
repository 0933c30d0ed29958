// The nine custom functions: =PHONELOOKUP(A2:A1001) and friends. One call answers a whole column
// range: rows are planned with core (empty, invalid, distinct valid requests), answers already paid
// for come from the document cache or the hidden sheet, answers another formula is buying at this
// moment are waited for (fetch-once.ts), the rest are fetched in parallel fetchAll rounds, and one row
// comes back per input row. Runs in AuthMode.CUSTOM_FUNCTION: read-only, 30 seconds, and the user
// properties (so the key) are the spreadsheet owner's.
import {
  checkApiKey,
  type InputField,
  type LeafValue,
  type Operation,
  type Outcome,
  outputColumns,
  planRow,
  rowStatusText,
} from '@enrich/core/universal';
import { type ArgSpec, type FunctionSpec, findFunction } from '../../spec.js';
import { allowanceGate, type Held } from '../allowance/ledger.js';
import type { Limits } from '../allowance/setting.js';
import { freshSince } from '../answers/freshness.js';
import { pendingRequests } from '../answers/pending.js';
import { type ChosenColumns, chooseWithExtras, extraValue, outcomeRow } from '../cells/outcome-row.js';
import { type ExecutionTime, executionTime } from '../execution-time.js';
import { asCoreSettings, settingsFrom } from '../key/settings.js';
import {
  FORMULA_STILL_FETCHING,
  FORMULA_TIME_UP,
  formulaHeldText,
  OWNER_ALLOWANCE_USED,
  OWNER_HAS_NO_KEY,
  OWNER_KEY_REFUSED,
} from '../messages.js';
import { refuseForgotten } from '../privacy/forgotten.js';
import { fetchOnce } from './fetch-once.js';

/** Apps Script stops a custom function after 30 s, wherever it is. */
const FORMULA_LIMIT_MS = 30_000;
/**
 * Kept free after the last fetch round or wait: saving the answers (a lock and two cache calls),
 * removing the marks, building the rows, and the script's start before `started` was taken.
 */
const FORMULA_MARGIN_MS = 2_000;

type Cell = string | number | boolean;

/** Called by the generated top-level functions: `PHONELOOKUP(phone, fields, header)`. */
export function customFunction(name: string, args: readonly unknown[]): Cell[][] {
  const started = Date.now();
  const spec = findFunction(name);
  if (!spec) throw new Error(`Unknown function ${name}`);
  const { op } = spec;
  const fieldsArg = args[spec.args.length];
  const headerArg = args[spec.args.length + 1];
  const chosen = chooseWithExtras(op, fieldsText(fieldsArg));
  if ('message' in chosen) throw new Error(chosen.message);
  const { columns } = chosen;
  const rows = inputRows(spec, args.slice(0, spec.args.length));

  // A forgotten person is refused here, before the cache and any request (privacy/forgotten.ts).
  const plans = refuseForgotten(
    op,
    rows.map((raw) => planRow(op, raw)),
  );
  const { outcomes, elsewhere, held } = fetchOutcomes(
    op,
    plans,
    executionTime(started, FORMULA_LIMIT_MS, FORMULA_MARGIN_MS),
  );
  checkExtrasFound(op, chosen, outcomes);

  const blank = (): Cell[] => columns.map(() => '');
  // A row without a record shows its status in the first column: a formula has no Status column.
  const message = (text: string): Cell[] => [text, ...columns.slice(1).map(() => '')];
  const out: Cell[][] = isTrue(headerArg) ? [[...columns]] : [];
  for (const plan of plans) {
    if (plan.kind === 'empty') out.push(blank());
    else if (plan.kind === 'invalid') out.push(message(rowStatusText('invalid', plan.message)));
    else {
      const outcome = outcomes.get(plan.key);
      if (!outcome) {
        // Never bought here: past the allowance, another formula is buying it, or there was no
        // time for another round.
        const stop = held?.reasons.get(plan.key);
        out.push(
          message(
            stop
              ? formulaHeldText(stop, (stop === 'month' ? held?.limits.month : held?.limits.day) ?? 0)
              : elsewhere.has(plan.key)
                ? FORMULA_STILL_FETCHING
                : FORMULA_TIME_UP,
          ),
        );
        continue;
      }
      const row = outcomeRow(op, outcome, columns);
      out.push(row.kind === 'ok' ? row.values.map(cellOf) : message(row.status));
    }
  }
  return out;
}

/**
 * A name in `fields` that is not a documented column is an extra field the service may send (DID).
 * When answers arrived and none of them carries it, it is a typo: the call fails with core's list
 * of the documented columns. (The answers are kept: the corrected formula does not pay again.)
 */
function checkExtrasFound(
  op: Operation,
  chosen: ChosenColumns,
  outcomes: ReadonlyMap<string, Outcome>,
): void {
  const records = [...outcomes.values()].filter((o) => o.kind === 'record');
  if (chosen.extras.length === 0 || records.length === 0) return;
  for (const name of chosen.extras) {
    if (records.some((o) => extraValue(o, name) !== undefined)) continue;
    throw new Error(
      `${op.title} has no column "${name}", and no answer carries an extra field of that name; its columns are ${outputColumns(op).join(', ')}`,
    );
  }
}

interface Fetched {
  outcomes: Map<string, Outcome>;
  /** Keys another formula was still buying when this one had to answer. */
  elsewhere: Set<string>;
  /** Keys not bought because of the owner's allowance, why, and the limits. */
  held?: { reasons: Map<string, Held>; limits: Limits };
}

/** Outcomes by request key for the distinct valid requests: cached, or fetched now within the allowance. */
function fetchOutcomes(
  op: Operation,
  plans: readonly ReturnType<typeof planRow>[],
  time: ExecutionTime,
): Fetched {
  const inputs = new Map<string, NonNullable<ReturnType<typeof planRow>['input']>>();
  for (const plan of plans) {
    if (plan.kind === 'request' && plan.input && !inputs.has(plan.key)) inputs.set(plan.key, plan.input);
  }
  const byKey = new Map<string, Outcome>();
  const elsewhere = new Set<string>();
  if (inputs.size === 0) return { outcomes: byKey, elsewhere };

  // Owner's properties: Apps Script gives a custom function the spreadsheet owner's user properties.
  const all = PropertiesService.getUserProperties().getProperties();
  const stored = settingsFrom(all);
  if (!stored.apiKey) throw new Error(OWNER_HAS_NO_KEY);
  // A key with a space or a line break cannot be the issued one: refused before any request.
  const keyProblem = checkApiKey(stored.apiKey);
  if (keyProblem) throw new Error(`${keyProblem} (the spreadsheet owner's key, which formulas use)`);
  const settings = asCoreSettings(stored);
  // How long answers are reused is the owner's setting too: the owner's key pays for them.
  const { cache, ids, cached, jobs } = pendingRequests(op, inputs, settings, {
    freshSince: freshSince(stored.answerDays),
  });
  for (const [key, outcome] of cached) byKey.set(key, outcome);
  if (jobs.length === 0) return { outcomes: byKey, elsewhere };

  // The owner's allowance in this spreadsheet: the owner's key pays.
  const gate = allowanceGate(cache, stored.apiKey, all, false);
  const fetched = fetchOnce(op, cache, jobs, time, gate);
  for (const outcome of fetched.outcomes.values()) {
    if (outcome.kind !== 'error') continue;
    // Whole-call failures: every row would say the same, and only the owner can mend them.
    if (outcome.error.code === 'unauthorized') throw new Error(OWNER_KEY_REFUSED);
    if (outcome.error.code === 'allowance') throw new Error(OWNER_ALLOWANCE_USED);
  }
  const reasons = new Map<string, Held>();
  for (const [key, id] of ids) {
    const outcome = fetched.outcomes.get(id);
    const stop = fetched.held.get(id);
    if (outcome) byKey.set(key, outcome);
    else if (stop) reasons.set(key, stop);
    else if (fetched.elsewhere.has(id)) elsewhere.add(key);
  }
  return {
    outcomes: byKey,
    elsewhere,
    held: reasons.size > 0 ? { reasons, limits: gate.limits() } : undefined,
  };
}

/**
 * The call's arguments as one named input per row. Each argument is a single value (used for every
 * row) or a 2D range of one column; ranges must have the same number of rows.
 */
export function inputRows(spec: FunctionSpec, args: readonly unknown[]): Record<string, unknown>[] {
  const columns = spec.args.map((arg, i) => columnOf(arg, args[i]));
  // A one-cell range counts as a single value: used for every row, like a plain value.
  const lengths = columns
    .filter((c): c is unknown[] => Array.isArray(c) && c.length > 1)
    .map((c) => c.length);
  const count = lengths.length === 0 ? 1 : Math.max(...lengths);
  const ragged = spec.args.find((_, i) => {
    const column = columns[i];
    return Array.isArray(column) && column.length > 1 && column.length !== count;
  });
  if (ragged) {
    throw new Error(
      `${ragged.name} has a different number of rows from the other ranges; give ranges of equal height`,
    );
  }
  const rows: Record<string, unknown>[] = [];
  for (let r = 0; r < count; r++) {
    const raw: Record<string, unknown> = {};
    spec.args.forEach((arg, i) => {
      const column = columns[i];
      const value = Array.isArray(column) ? column[column.length > 1 ? r : 0] : column;
      raw[fieldFor(arg, value).name] = value;
    });
    rows.push(raw);
  }
  return rows;
}

function columnOf(arg: ArgSpec, value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const width = Math.max(...value.map((row) => (Array.isArray(row) ? row.length : 1)));
  if (width > 1) {
    throw new Error(`${arg.name} takes one cell or one column; got a range ${width} columns wide`);
  }
  return value.map((row) => (Array.isArray(row) ? row[0] : row));
}

/** For an argument that takes several kinds of value: "@" → e-mail, phone digits → phone, else text. */
function fieldFor(arg: ArgSpec, value: unknown): InputField {
  const [first] = arg.fields;
  if (arg.fields.length === 1 || first === undefined) return first as InputField;
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  const ofKind = (kind: InputField['kind']) => arg.fields.find((f) => f.kind === kind);
  if (text.includes('@')) return ofKind('email') ?? first;
  if (/^[\d\s().\-+/]+$/.test(text)) return ofKind('phone') ?? first;
  return ofKind('text') ?? first;
}

function fieldsText(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (Array.isArray(value)) return value.flat().map(String).join(',');
  return String(value);
}

function isTrue(value: unknown): boolean {
  return (
    value === true || value === 1 || (typeof value === 'string' && value.trim().toUpperCase() === 'TRUE')
  );
}

function cellOf(value: LeafValue): Cell {
  return value === null ? '' : value;
}
