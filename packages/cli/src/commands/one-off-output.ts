// What a one-off call came to, printed (one-off.ts asks it): the record as a table or JSON on
// stdout, or why there is none; on stderr, where an answer came from, what could not be kept, and
// what the call cost. The exit code says the outcome.
import type { AnswerStore, OneCall, StoreFront } from '@enrich/bulk';
import { isDocumented } from '@enrich/bulk';
import {
  type CleanInput,
  flattenRecord,
  isLocalOrigin,
  isPaid,
  type LeafValue,
  likelyMeaning,
  type Mismatch,
  type Operation,
  type Outcome,
  operationOrigin,
  outputColumns,
} from '@enrich/core';
import { type ConnectIo, type ConnectionFlags, endpoints } from '../connection.js';
import { CommandError, EXIT, type ExitCode, exitCodeFor } from '../exit-codes.js';
import { jsonText, printable, twoColumns } from '../terminal-text.js';

/** What the printing needs of a one-off call's options. */
export interface OneOffShown {
  readonly op: Operation;
  readonly connection: ConnectionFlags;
  readonly json: boolean;
  /** Chosen output columns, or undefined for every non-empty one. */
  readonly columns: readonly string[] | undefined;
  /** Given with --cache (a paid-unreadable answer is then kept there). */
  readonly cache: unknown;
  readonly io: ConnectIo & { readonly stdout: NodeJS.WritableStream };
}

/** What the call came to, printed: the record (or why none) on stdout, the rest on stderr. */
export function said(
  options: OneOffShown,
  asked: OneCall,
  opened: { readonly cache: AnswerStore | undefined; readonly shared: StoreFront | undefined },
): ExitCode {
  const { op, io, json } = options;
  const print = (text: string) => io.stdout.write(`${text}\n`);
  const refusal = (outcome: string, message: string, text: string, code: ExitCode) => {
    if (json) print(jsonText({ operation: op.id, outcome, message }));
    else io.stderr.write(`${text}\n`);
    return code;
  };
  switch (asked.kind) {
    case 'invalid':
      // Caught before anything is sent or any key is asked for.
      return refusal(
        'invalid',
        asked.message,
        `Invalid input: ${asked.message}. Nothing was sent: no transaction spent.`,
        EXIT.invalidInput,
      );
    case 'forgotten':
      return refusal(
        'forgotten',
        asked.reason,
        `Not sent: ${asked.reason}. No transaction spent.`,
        EXIT.invalidInput,
      );
    case 'refused':
      return refusal('budget', asked.message, asked.message, EXIT.budget);
    case 'store-refused': {
      const message = `Not sent: budget: the shared answer store (${asked.where}) refused the transaction: its budget (--max-transactions-per-month) is spent. No transaction was spent.`;
      return refusal('budget', message, message, EXIT.budget);
    }
    case 'store-failed':
      throw storeFailed(asked.message);
    case 'answered':
      return answered(options, asked, opened);
  }
}

function answered(
  options: OneOffShown,
  asked: Extract<OneCall, { kind: 'answered' }>,
  opened: { readonly cache: AnswerStore | undefined; readonly shared: StoreFront | undefined },
): ExitCode {
  const { io } = options;
  const { outcome, source, kept } = asked;
  if (source === 'cache') {
    io.stderr.write(`From the answer cache ${opened.cache?.path}: no transaction spent.\n`);
    return printOutcome(options, asked.input, outcome);
  }
  if (asked.storeProblem !== undefined) {
    // Not paid, and the store could not give its transaction back: the command stops, as it does
    // for any failure of the store.
    if (!asked.paid) throw storeFailed(asked.storeProblem);
    io.stderr.write(
      `This paid answer could not be kept in the shared answer store (${asked.storeProblem}); another client may buy it again.\n`,
    );
  }
  if (source === 'store') {
    io.stderr.write(`From the shared answer store (${opened.shared?.where}): no transaction spent.\n`);
  }
  if (kept && kept.where !== 'journal') {
    // The answer is paid for: print it anyway, and say where it went.
    const where =
      kept.where === 'aside'
        ? `it was saved in ${kept.path}, which the next use of this cache takes in`
        : 'asking again would be paid for again';
    io.stderr.write(
      `This answer could not be added to the answer cache ${opened.cache?.path} (${kept.reason}); ${where}.\n`,
    );
  }
  const code = printOutcome(options, asked.input, outcome);
  io.stderr.write(`${costLine(options, outcome, source === 'store')}\n`);
  return code;
}

/** A store that fails stops the command: nothing more was sent. */
function storeFailed(message: string): CommandError {
  return new CommandError(`the shared answer store failed: ${message}. Nothing more was sent.`, EXIT.storage);
}

function printOutcome(options: OneOffShown, input: CleanInput, outcome: Outcome): ExitCode {
  const { op, io, json } = options;
  const print = (text: string) => io.stdout.write(`${text}\n`);
  const base = { operation: op.id, input };
  switch (outcome.kind) {
    case 'record': {
      const { extra, mismatches } = outcome;
      if (json) print(jsonText({ ...base, outcome: 'record', record: outcome.record, extra, mismatches }));
      else print(recordTable(op, input, outcome.record, options.columns, extra, mismatches));
      return EXIT.ok;
    }
    case 'unreadable':
      if (json) print(jsonText({ ...base, outcome: 'unreadable', reason: outcome.reason }));
      else
        io.stderr.write(
          `Paid, unreadable: the service answered 200 (a transaction was spent) but ${outcome.reason}. ${
            options.cache
              ? 'What arrived is kept in the answer cache; it is not asked again unless you add --retry-unreadable (one more transaction).'
              : 'Asking again costs one more transaction.'
          }\n`,
        );
      return EXIT.service;
    case 'no-match':
      if (json) print(jsonText({ ...base, outcome: 'no-match' }));
      else print(`No match: nothing was found for ${describeInput(input)}.`);
      return EXIT.noMatch;
    case 'error': {
      const { code, message, status } = outcome.error;
      if (json) print(jsonText({ ...base, outcome: 'error', error: { code, message, status } }));
      else io.stderr.write(`${message}\n`);
      return exitCodeFor(code);
    }
  }
}

function recordTable(
  op: Operation,
  input: CleanInput,
  record: Parameters<typeof flattenRecord>[1],
  chosen: readonly string[] | undefined,
  extra: Readonly<Record<string, LeafValue>>,
  mismatches: readonly Mismatch[],
): string {
  const columns = chosen ?? outputColumns(op);
  const documented = flattenRecord(op, record, columns);
  const values = columns.map((column, i) =>
    !isDocumented(op, column) && column in extra ? (extra[column] ?? '') : documented[i],
  );
  const rows: [string, string][] = [];
  let hidden = 0;
  columns.forEach((column, i) => {
    const value = values[i];
    const text = value === null || value === undefined ? '' : String(value);
    if (text === '' && !chosen) hidden++;
    else {
      const likely = likelyMeaning(op, column, value);
      rows.push([column, printable(likely ? `${text}  (likely: ${likely})` : text)]);
    }
  });
  // Fields the description does not list: shown after the documented ones, marked.
  if (!chosen) {
    for (const [name, value] of Object.entries(extra)) {
      rows.push([`${printable(name)} *`, printable(value === null ? '' : String(value))]);
    }
  }
  const lines = [`${op.title}: ${describeInput(input)}`, '', twoColumns(rows)];
  if (hidden > 0) lines.push('', `(${hidden} empty field${hidden === 1 ? '' : 's'} not shown)`);
  if (mismatches.length > 0) {
    lines.push(
      '',
      `The answer differed from the API description (kept as it came; * = not in the description):`,
    );
    for (const m of mismatches) lines.push(`  ${printable(m.field)}: ${printable(m.detail)}`);
  }
  return lines.join('\n');
}

function describeInput(input: CleanInput): string {
  return printable(
    Object.entries(input)
      .map(([name, value]) => `${name} ${value}`)
      .join(', '),
  );
}

/**
 * What the call cost, after its answer (issue 40): one transaction for a paid answer (a no match
 * too), nothing for a failure, "may have been paid" for a request that got no answer; on a
 * sandbox (on this machine) nothing is billed.
 */
function costLine(options: OneOffShown, outcome: Outcome, fromStore: boolean): string {
  if (fromStore) return 'Spent: nothing (the answer came from the shared answer store).';
  if (outcome.kind === 'error' && outcome.error.code === 'unanswered')
    return 'Spent: perhaps 1 transaction: the request was sent and no answer came, so it may have been paid.';
  if (!isPaid(outcome)) return 'Spent: nothing (no answer was paid for).';
  const bases = endpoints(options.connection, options.io.env);
  const origin = bases.sandbox ? undefined : operationOrigin(options.op, bases);
  const local = bases.sandbox || (origin !== undefined && isLocalOrigin(origin));
  const noMatch = outcome.kind === 'no-match' ? ' (a no match is paid too)' : '';
  return local
    ? `Spent: 1 transaction of the sandbox${noMatch}: synthetic data, nothing billed.`
    : `Spent: 1 transaction${noMatch}. \`enrich spend\` shows what was spent in all.`;
}
