// What a bulk run brought back, at a glance: how its rows came out (the match rate) and, for the
// operation's coded fields (those marked `breakdown` in outputs.ts), each value with its count, its
// share of the answered rows and its likely meaning. Defined once here: the CLI prints it, VS Code
// draws it as a chart, the Sheets sidebar as bars, all from this one plain object.
//
// Values are counted as the output writes them (the cell's text), so each count equals the number
// of rows of the output that hold that value. Scores are counted in bands of 20.
import type { Operation } from './catalog.js';
import { flattenRecord, outputColumns, outputField } from './flatten.js';
import { LIKELY_MEANINGS } from './likely.js';
import type { CountedAs, Looks } from './outputs.js';
import type { LeafValue, OutputRecord } from './response.js';

export interface BreakdownColumn {
  readonly column: string;
  readonly countedAs: CountedAs;
  readonly looks: Looks;
}

/** How the rows of a run came out; each client counts them as it writes the rows. */
export interface OutcomeCounts {
  readonly ok: number;
  readonly noMatch: number;
  readonly unreadable: number;
  readonly invalid: number;
  readonly errors: number;
  readonly notSent: number;
}

export interface OutcomeShare {
  readonly outcome: keyof OutcomeCounts;
  readonly label: string;
  readonly count: number;
  /** Of all rows, 0 to 1. */
  readonly share: number;
}

export interface BreakdownValue {
  /** The value as the output writes it ("" when empty); for a score, its band. */
  readonly value: string;
  /** How it is shown: the value, "(empty)", a band such as "60–79". */
  readonly label: string;
  readonly count: number;
  /** Of the answered (ok) rows, 0 to 1. */
  readonly share: number;
  /** Its likely meaning, from a related provider's documentation: always shown as "likely". */
  readonly meaning?: string;
  /** A value outside the codes known for this field: counted all the same, and said so. */
  readonly unexpected?: true;
}

export interface FieldBreakdown {
  readonly column: string;
  readonly countedAs: CountedAs;
  readonly values: readonly BreakdownValue[];
  /** The values past the first MAX_VALUES (by count), counted together. */
  readonly other?: { readonly distinct: number; readonly count: number; readonly share: number };
}

export interface Breakdown {
  readonly operation: string;
  readonly rows: number;
  /** The rows with an answer (ok): what the fields' shares are of. */
  readonly answered: number;
  readonly outcomes: readonly OutcomeShare[];
  readonly fields: readonly FieldBreakdown[];
}

/** Values shown one by one per field; the rest are counted together as "other". */
export const MAX_VALUES = 12;

const OUTCOME_LABELS: Readonly<Record<keyof OutcomeCounts, string>> = {
  ok: 'ok',
  noMatch: 'no match',
  unreadable: 'paid, unreadable',
  invalid: 'invalid',
  errors: 'errors',
  notSent: 'not sent',
};

// The codes each kind of field is known to hold (docs/platforms.md, and the description's
// yes/no and pass/fail flags); a field of another kind (DPV, PhoneType, Gender) has none we know.
const KNOWN_CODES: Partial<Record<Looks, readonly string[]>> = {
  'result-code': Object.keys(LIKELY_MEANINGS['result-code'] ?? {}),
  'tcpa-code': ['V', 'L', ...Object.keys(LIKELY_MEANINGS['tcpa-code'] ?? {})],
  'line-type': Object.keys(LIKELY_MEANINGS['line-type'] ?? {}),
  'yn-flag': ['Y', 'N', 'TRUE', 'FALSE'],
  'pass-fail': ['PASS', 'FAIL'],
  'income-band': ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I'],
};

const BANDS = ['0–19', '20–39', '40–59', '60–79', '80–100'] as const;
const NOT_COMPUTED = '(not computed)';
const EMPTY = '(empty)';

/** The band a score's text falls in ("" is not computed); a value that is no score stays itself. */
export function scoreBand(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return NOT_COMPUTED;
  const score = Number(trimmed);
  if (!Number.isFinite(score) || score < 0 || score > 100) return text;
  return BANDS[Math.min(4, Math.floor(score / 20))] as string;
}

const columnsCache = new WeakMap<Operation, readonly BreakdownColumn[]>();

/** The operation's coded columns, in the order of its output. */
export function breakdownColumns(op: Operation): readonly BreakdownColumn[] {
  let columns = columnsCache.get(op);
  if (!columns) {
    columns = outputColumns(op).flatMap((column) => {
      const field = outputField(op, column);
      return field?.breakdown ? [{ column, countedAs: field.breakdown, looks: field.looks }] : [];
    });
    columnsCache.set(op, columns);
  }
  return columns;
}

/** The values of an answer's coded columns, in breakdownColumns' order (as the record has them). */
export function breakdownValues(op: Operation, record: OutputRecord): LeafValue[] {
  return flattenRecord(
    op,
    record,
    breakdownColumns(op).map((c) => c.column),
  );
}

/** An answer's coded values as the tally numbers them: one small number per column. */
export type TallyCodes = readonly number[];

/** A tally's counts as plain JSON, to keep between executions (Apps Script runs in chunks). */
export interface TallyState {
  readonly values: readonly (readonly string[])[];
  readonly counts: readonly (readonly number[])[];
}

/**
 * Counts the coded values of a run's ok rows, column by column. A client that counts many rows of
 * one answer (a file repeats its requests) numbers its values once (codesOf) and counts by them;
 * memory grows with the distinct values of each column, never with the rows or the answers.
 */
export class BreakdownTally {
  readonly columns: readonly BreakdownColumn[];
  private readonly indexes: Map<string, number>[];
  private readonly values: string[][];
  private readonly counts: number[][];

  constructor(
    readonly op: Operation,
    state?: TallyState,
  ) {
    this.columns = breakdownColumns(op);
    this.values = this.columns.map((_, i) => [...(state?.values[i] ?? [])]);
    this.counts = this.columns.map((_, i) => [...(state?.counts[i] ?? [])]);
    this.indexes = this.values.map((values) => new Map(values.map((v, j) => [v, j])));
  }

  /** Numbers an answer's coded values (in breakdownColumns' order, as the output's cells write them). */
  codesOf(values: readonly string[]): TallyCodes {
    return this.columns.map((_, i) => {
      const value = values[i] ?? '';
      const index = this.indexes[i] as Map<string, number>;
      let code = index.get(value);
      if (code === undefined) {
        code = index.size;
        index.set(value, code);
        (this.values[i] as string[]).push(value);
        (this.counts[i] as number[]).push(0);
      }
      return code;
    });
  }

  /** Counts `rows` ok rows of one answer. */
  count(codes: TallyCodes, rows = 1): void {
    for (let i = 0; i < codes.length; i++) {
      const counts = this.counts[i] as number[];
      const code = codes[i] as number;
      counts[code] = (counts[code] ?? 0) + rows;
    }
  }

  /** Counts one ok row. */
  add(values: readonly string[]): void {
    this.count(this.codesOf(values));
  }

  /** The counts so far, as plain JSON (new BreakdownTally(op, state) carries on from them). */
  state(): TallyState {
    return { values: this.values.map((v) => [...v]), counts: this.counts.map((c) => [...c]) };
  }

  /** The breakdown, with the outcomes the client counted. */
  result(outcomes: OutcomeCounts): Breakdown {
    const rows = Object.values(outcomes).reduce((sum, n) => sum + n, 0);
    const answered = outcomes.ok;
    return {
      operation: this.op.id,
      rows,
      answered,
      outcomes: (Object.keys(OUTCOME_LABELS) as (keyof OutcomeCounts)[]).map((outcome) => ({
        outcome,
        label: OUTCOME_LABELS[outcome],
        count: outcomes[outcome],
        share: shareOf(outcomes[outcome], rows),
      })),
      fields: this.columns.map((column, i) => this.field(column, i, answered)),
    };
  }

  private field(column: BreakdownColumn, index: number, answered: number): FieldBreakdown {
    const byValue = new Map<string, number>();
    const counts = this.counts[index] as number[];
    (this.values[index] as string[]).forEach((text, code) => {
      const count = counts[code] ?? 0;
      if (count === 0) return;
      const value = column.countedAs === 'bands' ? scoreBand(text) : text;
      byValue.set(value, (byValue.get(value) ?? 0) + count);
    });
    const all = [...byValue].map(([value, count]) => describe(column, value, count, answered));
    all.sort(column.countedAs === 'bands' ? byBand : byCount);
    const values = all.slice(0, MAX_VALUES);
    const rest = all.slice(MAX_VALUES);
    if (rest.length === 0) return { column: column.column, countedAs: column.countedAs, values };
    const count = rest.reduce((sum, v) => sum + v.count, 0);
    return {
      column: column.column,
      countedAs: column.countedAs,
      values,
      other: { distinct: rest.length, count, share: shareOf(count, answered) },
    };
  }
}

function describe(column: BreakdownColumn, value: string, count: number, answered: number): BreakdownValue {
  const share = shareOf(count, answered);
  if (column.countedAs === 'bands') {
    const known = value === NOT_COMPUTED || (BANDS as readonly string[]).includes(value);
    return known
      ? { value, label: value, count, share }
      : { value, label: value, count, share, unexpected: true };
  }
  if (value.trim() === '') return { value, label: EMPTY, count, share };
  const code = value.trim().toUpperCase();
  const meaning = LIKELY_MEANINGS[column.looks]?.[code];
  const codes = KNOWN_CODES[column.looks];
  const base =
    meaning === undefined
      ? { value, label: value, count, share }
      : { value, label: value, count, share, meaning };
  return codes !== undefined && !codes.includes(code) ? { ...base, unexpected: true } : base;
}

const byCount = (a: BreakdownValue, b: BreakdownValue) =>
  b.count - a.count || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0);

// Bands low to high, "not computed" and anything unexpected after them.
const bandRank = (label: string) => {
  const i = (BANDS as readonly string[]).indexOf(label);
  return i === -1 ? BANDS.length : i;
};
const byBand = (a: BreakdownValue, b: BreakdownValue) =>
  bandRank(a.label) - bandRank(b.label) || byCount(a, b);

function shareOf(count: number, of: number): number {
  return of === 0 ? 0 : count / of;
}
