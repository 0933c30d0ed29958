// What a bulk run did, counted as it goes: the summary every client prints or shows.
import type { Breakdown } from '@enrich/core';
import type { CsvLayout } from '../formats/csv-layout.js';
import type { FileKind } from '../formats/file-kind.js';
import type { RowSource } from '../formats/row-source.js';
import { type PaceSummary, paceSummary, type Sender, type StopReason } from '../sending/sender.js';
import type { SaveReport } from '../store/answer-store.js';
import type { BulkOptions } from './bulk-options.js';
import type { ResultKind, RowResult } from './row-result.js';

export interface InvalidExample {
  /** As a spreadsheet numbers it: the header is row 1. */
  readonly row: number;
  readonly message: string;
}

export interface BulkSummary {
  readonly operation: string;
  readonly input: string;
  readonly output: string;
  readonly cache: string;
  /** Data rows read (the header not counted). */
  rows: number;
  blank: number;
  /** Invalid rows, blank ones included. */
  invalid: number;
  /** Distinct valid requests in the file. */
  distinct: number;
  /** Of those, answered from the cache of an earlier run. */
  fromCache: number;
  /** The shared answer store the run used (where it is, no password), if any. */
  readonly store: string | undefined;
  /** Of the distinct requests, answered free from the shared store (bought by another client or instance). */
  fromStore: number;
  /** The shared store refused a transaction: its budget is spent (`stopped` is 'budget'). */
  storeRefused: boolean;
  /** Why the shared store failed, if it did (the run stopped sending; `stopped` is 'storage'). */
  storeError: string | undefined;
  /** Transactions this run spent (paid answers). */
  transactions: number;
  ok: number;
  /** Of the ok rows, those whose answer differed from the API description. */
  notAsDocumented: number;
  noMatch: number;
  /** Rows whose answer was paid for but could not be read (cut, too big, not JSON). */
  unreadable: number;
  /** Requests asked again because their cached answer was unreadable (retryUnreadable). */
  askedAgain: number;
  /** Extra columns added for fields the description does not list. */
  extraColumns: string[];
  /** Rows whose request failed after its retries (or was abandoned in flight). */
  errors: number;
  /** Rows never sent because the run stopped sending (budget, refused key, allowance, outage). */
  notSent: number;
  /** Requests sent, and HTTP attempts (retries included), and 429 answers among them. */
  requests: number;
  attempts: number;
  throttled: number;
  /** The pace the run reached, and whether the controller found it or the user fixed it. */
  pace: PaceSummary | undefined;
  invalidExamples: InvalidExample[];
  stopped: StopReason | undefined;
  /** When the service said to come back (a Retry-After over the cap), as an ISO date. */
  resumeAt: string | undefined;
  /** Requests abandoned in flight when the run was interrupted: the service may have billed them. */
  abandoned: number;
  /**
   * Requests sent whole that got no answer (the deadline passed, or the connection was lost while
   * waiting): the service may have billed them. Not retried; their rows are errors saying so.
   */
  unanswered: number;
  /** Lines of the cache file that could not be read (skipped). */
  unreadableCacheLines: number;
  /** Answers an earlier run could not journal, imported from its rescue file. */
  rescuedImported: number;
  /** When the journal could not be written: where the answers that arrived went. */
  unsaved: SaveReport | undefined;
  /** Why the output file could not be written, if it could not. */
  outputError: string | undefined;
  /** How the input is written (encoding, separator, BOM, line end): the output keeps it, in UTF-8. */
  layout: CsvLayout | undefined;
  /** The input's kind, and what was found in it in words (its layout, its sheet). */
  inputKind: FileKind | undefined;
  found: string | undefined;
  /** Why the input could not be read to its end (a broken quote mid-file, say), if it could not. */
  inputError: string | undefined;
  /** What came back: the rows' outcomes and each coded value's count (of a completed run). */
  breakdown: Breakdown | undefined;
  /** False when interrupted or stopped by a file problem: the output was not written. */
  completed: boolean;
  elapsedMs: number;
}

export const INVALID_EXAMPLES = 5;

/** A run's summary before its first row: the files as the user named them, what was found in them. */
export function runSummary(
  options: BulkOptions,
  input: RowSource,
  store: { readonly unreadableLines: number; readonly imported: number },
): BulkSummary {
  const display = options.display ?? String;
  const summary = emptySummary({
    operation: options.op.id,
    input: display(options.inPath),
    output: display(options.outPath),
    cache: display(options.cachePath),
    store: options.sharedStore?.where,
  });
  summary.layout = input.layout;
  summary.inputKind = input.kind;
  summary.found = input.found;
  summary.unreadableCacheLines = store.unreadableLines;
  summary.rescuedImported = store.imported;
  return summary;
}

export function emptySummary(names: {
  operation: string;
  input: string;
  output: string;
  cache: string;
  store?: string | undefined;
}): BulkSummary {
  return {
    ...names,
    store: names.store,
    rows: 0,
    blank: 0,
    invalid: 0,
    distinct: 0,
    fromCache: 0,
    fromStore: 0,
    storeRefused: false,
    storeError: undefined,
    transactions: 0,
    ok: 0,
    notAsDocumented: 0,
    noMatch: 0,
    unreadable: 0,
    askedAgain: 0,
    extraColumns: [],
    errors: 0,
    notSent: 0,
    requests: 0,
    attempts: 0,
    throttled: 0,
    pace: undefined,
    invalidExamples: [],
    stopped: undefined,
    resumeAt: undefined,
    abandoned: 0,
    unanswered: 0,
    unreadableCacheLines: 0,
    rescuedImported: 0,
    unsaved: undefined,
    outputError: undefined,
    layout: undefined,
    inputKind: undefined,
    found: undefined,
    inputError: undefined,
    breakdown: undefined,
    completed: false,
    elapsedMs: 0,
  };
}

/** The summary's count that each kind of written row adds to. (Blank rows count as invalid too.) */
const COUNTER: Record<ResultKind, 'ok' | 'noMatch' | 'unreadable' | 'invalid' | 'errors' | 'notSent'> = {
  ok: 'ok',
  'no-match': 'noMatch',
  unreadable: 'unreadable',
  invalid: 'invalid',
  blank: 'invalid',
  error: 'errors',
  'not-sent': 'notSent',
};

/** Counts one written row. */
export function countRow(summary: BulkSummary, result: RowResult): void {
  summary[COUNTER[result.kind]]++;
  if (result.kind === 'ok' && result.mismatches) summary.notAsDocumented++;
}

const KINDS = Object.keys(COUNTER) as ResultKind[];
const NOT_AS_DOCUMENTED = 16;

/** A result's kind as a small number (for the spill file), with a flag for "not as documented". */
export function kindCode(result: RowResult): number {
  return KINDS.indexOf(result.kind) | (result.kind === 'ok' && result.mismatches ? NOT_AS_DOCUMENTED : 0);
}

/** Counts one written row from its kind code. */
export function countCode(summary: BulkSummary, code: number): void {
  summary[COUNTER[KINDS[code & 15] as ResultKind]]++;
  if (code & NOT_AS_DOCUMENTED) summary.notAsDocumented++;
}

/** Rows written so far (every kind). */
export function rowsWritten(s: BulkSummary): number {
  return s.ok + s.noMatch + s.unreadable + s.invalid + s.errors + s.notSent;
}

/** What the sender did, once the run has stopped sending: spent, sent, paced, stopped. */
export function takeSenderCounts(summary: BulkSummary, sender: Sender): void {
  summary.transactions = sender.spent;
  summary.requests = sender.started;
  summary.attempts = sender.attempts;
  summary.throttled = sender.throttled;
  summary.pace = paceSummary(sender);
  summary.abandoned = sender.abandoned;
  summary.unanswered = sender.unanswered;
  summary.resumeAt = sender.resumeAt === undefined ? undefined : new Date(sender.resumeAt).toISOString();
  summary.stopped = sender.stopReason === 'interrupted' ? undefined : sender.stopReason;
}
