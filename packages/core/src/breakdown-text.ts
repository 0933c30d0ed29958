// A run's breakdown as plain text, for a terminal or an assistant: one line for the rows' outcomes,
// then a small table per coded field with a bar per value. The charts of VS Code and Sheets draw the
// same object; the words and the percentages come from here.
import type { Breakdown, FieldBreakdown } from './breakdown.js';

const BAR_WIDTH = 20;

/** Where a "likely" meaning comes from, for a client that shows one. */
export const LIKELY_NOTE =
  "likely: a meaning from a related provider's documentation; the API description does not give the codes' meanings";

/** A share (0 to 1) as a whole percentage; a small share that is not nothing is "<1%". */
export function percentText(share: number): string {
  if (share > 0 && share < 0.005) return '<1%';
  return `${Math.round(share * 100)}%`;
}

/** The words after a value: its likely meaning, or that it is not a code known for the field. */
export function valueNote(value: { readonly meaning?: string; readonly unexpected?: true }): string {
  if (value.meaning !== undefined) return `likely: ${value.meaning}`;
  return value.unexpected ? 'not a known code' : '';
}

/** "ok 272 (95%) · no match 0 · invalid 14 (5%)": the outcomes that occurred, and ok always. */
export function outcomesText(b: Breakdown, number: (n: number) => string = String): string {
  return b.outcomes
    .filter((o) => o.count > 0 || o.outcome === 'ok')
    .map((o) => `${o.label} ${number(o.count)}${o.count > 0 ? ` (${percentText(o.share)})` : ''}`)
    .join(' · ');
}

/** The whole breakdown as lines of text (no trailing newline). */
export function breakdownText(b: Breakdown, number: (n: number) => string = String): string {
  const lines = [`rows: ${outcomesText(b, number)}`];
  for (const field of b.fields) lines.push(...fieldLines(field, number));
  return lines.join('\n');
}

/** One bar of a field's chart: a value, or the values past the first few counted together. */
export interface BreakdownRow {
  readonly label: string;
  readonly count: number;
  readonly share: number;
  /** Its likely meaning, "not a known code", or how many values "other" holds. */
  readonly note: string;
  readonly kind: 'value' | 'unexpected' | 'other';
}

/** A field's values as the rows every client draws, "other" last. */
export function breakdownRows(field: FieldBreakdown, number: (n: number) => string = String): BreakdownRow[] {
  const rows: BreakdownRow[] = field.values.map((v) => ({
    label: v.label,
    count: v.count,
    share: v.share,
    note: valueNote(v),
    kind: v.unexpected ? 'unexpected' : 'value',
  }));
  if (field.other) {
    const { distinct, count, share } = field.other;
    const note = `${number(distinct)} more value${distinct === 1 ? '' : 's'}`;
    rows.push({ label: 'other', count, share, note, kind: 'other' });
  }
  return rows;
}

function fieldLines(field: FieldBreakdown, number: (n: number) => string): string[] {
  const rows = breakdownRows(field, number);
  if (rows.length === 0) return [`${field.column}: no answered rows`];
  const labelWidth = Math.max(...rows.map((r) => r.label.length));
  const countWidth = Math.max(...rows.map((r) => number(r.count).length));
  return [
    `${field.column}${field.countedAs === 'bands' ? ' (score bands)' : ''}:`,
    ...rows.map((r) =>
      [
        `  ${r.label.padEnd(labelWidth)}`,
        number(r.count).padStart(countWidth),
        percentText(r.share).padStart(4),
        bar(r.share).padEnd(BAR_WIDTH),
        r.note,
      ]
        .join('  ')
        .trimEnd(),
    ),
  ];
}

function bar(share: number): string {
  const cells = Math.round(share * BAR_WIDTH);
  return '█'.repeat(cells === 0 && share > 0 ? 1 : cells);
}
