// `enrich <operation> --Phone 5550102030`: one call, its record as a table (or JSON). With --cache,
// an answer already in the answer cache is printed without a call, and a new paid one is kept.
import { resolve } from 'node:path';
import { AnswerStore, type AnswerStoreOptions, isDocumented, isUnreadable, type Refuse } from '@enrich/bulk';
import {
  abortableSleep,
  type CleanInput,
  callOperation,
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
  type RetryPolicy,
  requestKey,
  validate,
} from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { answerNamespace, type ConnectIo, type ConnectionFlags, connect, endpoints } from '../connection.js';
import { EXIT, type ExitCode, exitCodeFor } from '../exit-codes.js';
import { runPrivacy } from '../privacy.js';
import type { Scrub } from '../scrub-io.js';
import {
  closeStore,
  monthlyCap,
  openSharedStore,
  type OpenOptions as SharedStoreOptions,
  storeUrl,
} from '../shared-store.js';
import { recordSpend } from '../spend-ledger.js';
import { jsonText, printable, twoColumns } from '../terminal-text.js';
import { buyThroughStore, type StoreBought } from './one-off-store.js';
import { type OperationFlags, retryPolicyOf } from './operation.js';

interface OneOffOptions {
  readonly op: Operation;
  readonly input: Readonly<Record<string, string>>;
  readonly connection: ConnectionFlags;
  readonly json: boolean;
  /** Chosen output columns, or undefined for every non-empty one. */
  readonly columns: readonly string[] | undefined;
  readonly policy: RetryPolicy;
  readonly timeoutMs: number;
  /** With --cache: an answer already there is printed without a call; a new one is kept. */
  readonly cache: AnswerStoreOptions | undefined;
  /** Ask again when the cached answer is paid-unreadable. */
  readonly retryUnreadable?: boolean;
  /** The shared answer store (--store / ENRICH_STORE), opened once the input is known to be valid. */
  readonly shared: { readonly url: string; readonly options: SharedStoreOptions } | undefined;
  readonly io: ConnectIo & { readonly stdout: NodeJS.WritableStream; readonly cwd: string };
}

/** The action of an operation's command given field values: checks, calls (or reads the cache), prints. */
export function oneOffAction(
  op: Operation,
  flags: OperationFlags,
  input: Readonly<Record<string, string>>,
  io: OneOffOptions['io'],
  scrub: Scrub,
): Promise<ExitCode> {
  // The command's --sandbox, --base-url and --base-url-v3.
  const connection: ConnectionFlags = flags;
  const cache = flags.cache
    ? {
        path: resolve(io.cwd, flags.cache),
        namespace: answerNamespace(op, connection, io.env),
        scrub,
        maxAgeMs: flags.maxAge,
      }
    : undefined;
  const url = storeUrl(flags, io.env);
  const cap = monthlyCap(flags, io.env, url);
  const namespace = answerNamespace(op, connection, io.env);
  const shared =
    url === undefined
      ? undefined
      : { url, options: { namespace, maxAgeMs: flags.maxAge, maxTransactionsPerMonth: cap } };
  return runOneOff({
    op,
    shared,
    input,
    connection,
    json: flags.json === true,
    columns: flags.fields?.columns,
    policy: retryPolicyOf(flags),
    timeoutMs: flags.timeout,
    cache,
    retryUnreadable: flags.retryUnreadable === true,
    io,
  });
}

async function runOneOff(given: OneOffOptions): Promise<ExitCode> {
  const { op, io, json } = given;
  const print = (text: string) => io.stdout.write(`${text}\n`);
  const checked = validate(op, given.input);
  if (!checked.ok) {
    // Caught before anything is sent or any key is asked for.
    if (json) print(jsonText({ operation: op.id, outcome: 'invalid', message: checked.message }));
    else io.stderr.write(`Invalid input: ${checked.message}. Nothing was sent: no transaction spent.\n`);
    return EXIT.invalidInput;
  }
  // A person forgotten at their request is refused before the cache and the service (privacy.ts).
  const options = await withPrivacy(given);
  const refused = options.refuse?.(op, checked.input);
  if (refused !== undefined) {
    if (json) print(jsonText({ operation: op.id, outcome: 'forgotten', message: refused }));
    else io.stderr.write(`Not sent: ${refused}. No transaction spent.\n`);
    return EXIT.invalidInput;
  }
  const key = requestKey(op, checked.input);
  const store = options.cache ? AnswerStore.open(options.cache) : undefined;
  try {
    const stored = store?.get(key);
    const cached = stored && options.retryUnreadable && isUnreadable(stored) ? undefined : stored;
    if (stored && !cached) {
      io.stderr.write(
        `--retry-unreadable: the cached answer was paid for but unreadable; asking again costs one more transaction.\n`,
      );
    }
    if (cached) {
      io.stderr.write(`From the answer cache ${store?.path}: no transaction spent.\n`);
      return printOutcome(options, checked.input, cached);
    }
    const bought = await buy(options, checked.input, key);
    if (bought.kind === 'refused') {
      if (json) print(jsonText({ operation: op.id, outcome: 'budget', message: bought.message }));
      else io.stderr.write(`${bought.message}\n`);
      return EXIT.budget;
    }
    const { outcome } = bought;
    if (bought.kind === 'unkept') io.stderr.write(`${bought.message}\n`);
    const fromStore = bought.kind === 'answer' && bought.fromStore;
    if (fromStore) io.stderr.write(`From the shared answer store (${bought.where}): no transaction spent.\n`);
    else if (isPaid(outcome)) recordSpend(io, op, endpoints(options.connection, io.env));
    if (store && (fromStore || isPaid(outcome)) && !(await store.put(key, outcome))) {
      // The answer is paid for: print it anyway, save it where possible, and say where it went.
      const saved = store.saveUnsaved();
      const where =
        saved?.where === 'rescue'
          ? `it was saved in ${saved.rescuePath}, which the next use of this cache takes in`
          : saved?.where === 'journal'
            ? 'it was written on a second try'
            : 'asking again would be paid for again';
      io.stderr.write(
        `This answer could not be added to the answer cache ${store.path} (${saved?.reason}); ${where}.\n`,
      );
    }
    const code = printOutcome(options, checked.input, outcome);
    io.stderr.write(`${costLine(options, outcome, fromStore)}\n`);
    return code;
  } finally {
    store?.close();
  }
}

/**
 * The options with the user's privacy applied: the retention caps the max age of the cache and the
 * shared store, the cache is registered (forget and held find it), and `refuse` says who is forgotten.
 */
async function withPrivacy(
  given: OneOffOptions,
): Promise<OneOffOptions & { readonly refuse: Refuse | undefined }> {
  const privacy = await runPrivacy(given.io.env, {
    maxAgeMs: given.cache?.maxAgeMs ?? given.shared?.options.maxAgeMs ?? Number.POSITIVE_INFINITY,
    journal: given.cache?.path,
    storeUrl: given.shared?.url,
  });
  if (privacy.note) given.io.stderr.write(`enrich: ${privacy.note}\n`);
  const maxAgeMs = privacy.maxAgeMs;
  return {
    ...given,
    cache: given.cache && { ...given.cache, maxAgeMs },
    shared: given.shared && { ...given.shared, options: { ...given.shared.options, maxAgeMs } },
    refuse: privacy.refuse,
  };
}

/** The call, through the shared store when there is one (one-off-store.ts); the store is closed after. */
async function buy(options: OneOffOptions, input: CleanInput, key: string): Promise<StoreBought> {
  if (!options.shared) {
    return { kind: 'answer', outcome: await call(options, input), fromStore: false, where: '' };
  }
  const shared = await openSharedStore(options.shared.url, options.shared.options);
  try {
    return await buyThroughStore(shared, options.op, key, () => call(options, input));
  } finally {
    await closeStore(shared, options.io.stderr);
  }
}

async function call(options: OneOffOptions, input: CleanInput): Promise<Outcome> {
  const { io } = options;
  const connection = await connect(options.connection, io);
  try {
    const report = await callOperation(options.op, input, {
      transport: createFetchTransport({ timeoutMs: options.timeoutMs }),
      settings: connection.settings,
      policy: options.policy,
      sleep: (ms) => abortableSleep(ms),
      now: Date.now,
      onRetry: ({ delayMs, outcome }) => {
        const why = outcome.kind === 'error' ? outcome.error.message : '';
        io.stderr.write(`${why} Trying again in ${(delayMs / 1000).toFixed(1)} s.\n`);
      },
    });
    if (report.waitTooLong) {
      const { retryAfterMs, resumeAt } = report.waitTooLong;
      io.stderr.write(
        `The service asked to wait ${Math.round(retryAfterMs / 1000)} s (Retry-After), longer than --max-retry-after; not waited for. Try again after ${new Date(resumeAt).toISOString()}.\n`,
      );
    }
    return report.outcome;
  } finally {
    await connection.close();
  }
}

function printOutcome(options: OneOffOptions, input: CleanInput, outcome: Outcome): ExitCode {
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
function costLine(options: OneOffOptions, outcome: Outcome, fromStore: boolean): string {
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
