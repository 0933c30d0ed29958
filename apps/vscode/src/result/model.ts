// What the result view shows, worked out from a History entry without any HTML: the record as
// groups of fields in the order the API description lists them (Name, Address, Vehicles,
// Demographics, Scores...), each value with its likely meaning where core knows one (likely.ts),
// empty fields set apart so the view can fold them away, and every field that differs from the
// description flagged with what differed (core's mismatches; unknown fields in a group of their own).
import {
  type LeafValue,
  likelyMeaning,
  type Mismatch,
  notAsDocumented,
  type Operation,
  type OutputRecord,
  ROW_OUTCOMES,
} from '@enrich/core';
import { type HistoryEntry, inputSummary, operationOf, resultTabTitle, spentSentence } from '../history';

export interface FieldView {
  /** Index into ResultModel.values: the view asks to copy a value by index, never by its text. */
  readonly index: number;
  readonly label: string;
  /** The documented path (`Address.City`) or an unknown field's dotted name. */
  readonly path: string;
  readonly text: string;
  readonly likely?: string;
  /** What differed from the API description, when something did. */
  readonly flag?: string;
}

export interface GroupView {
  readonly title: string;
  readonly fields: readonly FieldView[];
  /** Fields the answer left empty: folded away by the view. */
  readonly empty: readonly FieldView[];
}

export interface ResultModel {
  /** The page's heading: the operation and the input. */
  readonly title: string;
  /** The tab's: the operation and the time, never the input (`resultTabTitle`). */
  readonly tabTitle: string;
  /** "record", "no match", "paid, unreadable", "error": what happened, in words. */
  readonly words: string;
  readonly status: string;
  /** "a transaction was spent", "a transaction may have been spent", "no transaction was spent". */
  readonly spent: string;
  readonly groups: readonly GroupView[];
  readonly values: readonly string[];
  /** A sentence for answers without a record: no match, unreadable, errors. */
  readonly message?: string;
  /** Notes on differences that belong to no shown field (a group sent as a single value...). */
  readonly notes: readonly string[];
}

// Friendlier titles for the groups whose field name is an abbreviation; others keep their name.
const GROUP_TITLES: Readonly<Record<string, string>> = {
  IDS: 'Identifiers',
  IDScores: 'Scores',
  Vehicle: 'Vehicle 1',
};

export function buildModel(entry: HistoryEntry): ResultModel {
  const op = operationOf(entry);
  const { outcome } = entry;
  const base = {
    title: `${op.title}: ${inputSummary(entry.input)}`,
    tabTitle: resultTabTitle(entry),
    spent: spentSentence(entry),
    values: [] as string[],
  };
  if (outcome.kind !== 'record') {
    const status =
      outcome.kind === 'error' ? String(outcome.error.status ?? outcome.error.code) : String(outcome.status);
    const message =
      outcome.kind === 'no-match'
        ? `No record matches ${inputSummary(entry.input)}.`
        : outcome.kind === 'unreadable'
          ? `The service answered 200, so a transaction was spent, but ${outcome.reason}.`
          : outcome.error.message;
    return { ...base, words: resultWords(entry), status, groups: [], message, notes: [] };
  }
  const mismatches = outcome.mismatches ?? [];
  const flags = new Map(mismatches.map((m) => [m.field.toLowerCase(), m]));
  const groups = recordGroups(op, outcome.record, flags, base.values);
  const extra = Object.entries(outcome.extra ?? {});
  if (extra.length > 0) {
    groups.push(
      splitEmpty(
        'Not in the API description',
        extra.map(([name, value]) =>
          field(base.values, name, name, value, undefined, flags.get(name.toLowerCase()) ?? unknownFlag),
        ),
      ),
    );
  }
  const shownPaths = new Set(
    groups.flatMap((g) => [...g.fields, ...g.empty]).map((f) => f.path.toLowerCase()),
  );
  const notes = mismatches
    .filter((m) => !shownPaths.has(m.field.toLowerCase()))
    .map((m) => `${m.field}: ${m.detail}`);
  return { ...base, words: resultWords(entry), status: '200', groups, notes };
}

/** "record", "record (2 fields not as documented)", "no match", "paid, unreadable", "error". */
export function resultWords(entry: HistoryEntry): string {
  const { outcome } = entry;
  if (outcome.kind === 'record') {
    // One answer on its own is a "record" here; the row word "ok" belongs to a file of many.
    const detail = notAsDocumented(outcome.mismatches?.length ?? 0);
    return detail ? `record (${detail})` : 'record';
  }
  return ROW_OUTCOMES[outcome.kind].word;
}

const unknownFlag: Mismatch = { field: '', problem: 'unknown', detail: 'not in the API description; kept' };

function recordGroups(
  op: Operation,
  record: OutputRecord,
  flags: ReadonlyMap<string, Mismatch>,
  values: string[],
): GroupView[] {
  const loose: FieldView[] = [];
  const groups: GroupView[] = [];
  for (const [name, spec] of Object.entries(op.output)) {
    if (spec.type !== 'object') {
      const value = record[name];
      loose.push(
        field(
          values,
          name,
          name,
          isLeaf(value) ? value : '',
          likelyMeaning(op, name, value),
          flags.get(name.toLowerCase()),
        ),
      );
      continue;
    }
    const inner = record[name];
    const leaves = inner !== null && typeof inner === 'object' ? inner : {};
    const fields = Object.keys(spec.fields).map((leaf) => {
      const value = leaves[leaf] ?? '';
      const column = spec.columns === 'prefixed' ? `${name}.${leaf}` : leaf;
      const path = `${name}.${leaf}`;
      return field(
        values,
        leaf,
        path,
        value,
        likelyMeaning(op, column, value),
        flags.get(path.toLowerCase()),
      );
    });
    groups.push(splitEmpty(GROUP_TITLES[name] ?? name.replace(/^Vehicle(\d)$/, 'Vehicle $1'), fields));
  }
  if (loose.length === 0) return groups;
  // Without groups, the operation's own fields (Phone Append's Phone, TCPA's codes) are the answer;
  // beside groups they are only bookkeeping (a lookup's trace), so they come last.
  if (groups.length === 0) groups.push(splitEmpty('Answer', loose));
  else groups.push(splitEmpty('Other', loose));
  return groups;
}

function field(
  values: string[],
  label: string,
  path: string,
  value: LeafValue,
  likely: string | undefined,
  mismatch: Mismatch | undefined,
): FieldView {
  const text = value === null ? '' : String(value);
  values.push(text);
  return {
    index: values.length - 1,
    label,
    path,
    text,
    ...(likely ? { likely } : {}),
    ...(mismatch ? { flag: mismatch.detail } : {}),
  };
}

function splitEmpty(title: string, fields: readonly FieldView[]): GroupView {
  return {
    title,
    fields: fields.filter((f) => f.text !== '' || f.flag),
    empty: fields.filter((f) => f.text === '' && !f.flag),
  };
}

function isLeaf(value: unknown): value is LeafValue {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}
