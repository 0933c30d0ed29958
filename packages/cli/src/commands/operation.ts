// One subcommand per operation of the catalog: `enrich phone-lookup --Phone 5550102030` for one
// call, `enrich phone-lookup --in leads.csv` for a bulk run. Every option's value is parsed (and
// refused with the flag's name) by its own parser, so the actions receive numbers and maps.

import {
  CACHE_FILE,
  type CsvDelimiter,
  type CsvEncoding,
  DEFAULT_MAX_AGE_MS,
  MAX_PER_MONTH_ENV,
  parseMonthlyCap,
  STORE_ENV,
} from '@enrich/bulk';
import {
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_RETRY_AFTER_MS,
  DEFAULT_RETRY_POLICY,
  type Operation,
  outputColumns,
  type RetryPolicy,
  squash,
} from '@enrich/core';
import { type Command, Option } from 'commander';
import { CommandError, EXIT } from '../exit-codes.js';
import {
  parseDelimiter,
  parseDuration,
  parseEncoding,
  parseMap,
  parseRate,
  parseTimeout,
  parseWhole,
} from '../options.js';
import { type ChosenColumns, chosenColumns } from './columns.js';
import { FieldOption, flagOf } from './field-option.js';

/** Most requests in flight a user may fix, or let the controller reach. */
const MAX_CONCURRENCY = 256;
/** Every client's default maximum age (bulk's: the default retention), as --help shows it. */
const DEFAULT_MAX_AGE = `${DEFAULT_MAX_AGE_MS / 86_400_000}d`;

/** The options of an operation's command, parsed. Durations are in milliseconds. */
export interface OperationFlags {
  readonly in?: string;
  readonly out?: string;
  readonly map: Readonly<Record<string, string>>;
  readonly fields?: ChosenColumns;
  readonly cache?: string;
  readonly encoding?: CsvEncoding;
  readonly delimiter?: CsvDelimiter;
  readonly sheet?: string;
  readonly maxAge: number;
  /** A number fixed by the user, or 'auto': the pace the service allows (core's Pace). */
  readonly concurrency: number | 'auto';
  readonly maxConcurrency: number;
  readonly maxRate?: number;
  /** With auto: start from the last run's pace against the service, and keep this one's (--no-remember-pace: false). */
  readonly rememberPace: boolean;
  readonly maxTransactions?: number;
  readonly maxAttempts: number;
  readonly maxRetryAfter: number;
  readonly timeout: number;
  readonly dryRun?: boolean;
  readonly retryUnreadable?: boolean;
  readonly force?: boolean;
  readonly json?: boolean;
  readonly quiet?: boolean;
  readonly progressEvery: number;
  readonly sandbox?: boolean;
  readonly baseUrl?: string;
  readonly baseUrlV3?: string;
  /** --store: the shared answer store's URL (else ENRICH_STORE; see shared-store.ts). */
  readonly store?: string;
  /** The shared store's cap per UTC month, across every client and instance. */
  readonly maxTransactionsPerMonth?: number;
}

/** Core's retry policy with the command's --max-attempts and --max-retry-after. */
export function retryPolicyOf(flags: OperationFlags): RetryPolicy {
  return { ...DEFAULT_RETRY_POLICY, maxAttempts: flags.maxAttempts, maxRetryAfterMs: flags.maxRetryAfter };
}

export type OperationAction = (
  op: Operation,
  flags: OperationFlags,
  input: Readonly<Record<string, string>>,
  command: Command,
) => Promise<void>;

const whole = (flag: string, min: number, max?: number) => (text: string) => parseWhole(text, flag, min, max);
/** The store's cap by bulk's one rule for it (the variable's too), refused as any bad flag is. */
const monthlyCapFlag = (text: string): number => {
  try {
    return parseMonthlyCap(text, '--max-transactions-per-month') as number;
  } catch (error) {
    throw new CommandError((error as Error).message, EXIT.usage);
  }
};
const parseConcurrency = (text: string): number | 'auto' =>
  text.trim().toLowerCase() === 'auto'
    ? 'auto'
    : parseWhole(text, '--concurrency', 1, MAX_CONCURRENCY, 'or auto');
const seconds = (flag: string, min: number, max?: number) => (text: string) =>
  parseWhole(text, flag, min, max) * 1000;

/** Adds the operation's command to `program`; `action` runs with the parsed flags and field values. */
// The options are declared in groups, in the order --help lists them: each group a step below.
export function addOperationCommand(program: Command, op: Operation, action: OperationAction): Command {
  const cmd = program
    .command(op.id)
    .aliases(namesOf(op))
    .summary(`${op.title}: ${op.inputs.map((f) => `--${flagOf(f)}`).join(' ')}`)
    .description(`${op.title}: ${op.category} (${op.version} ${op.path})`)
    .usage('[--Field value ...] | --in file [--out file] [options]');
  addFileOptions(cmd, op);
  addCacheOptions(cmd);
  addPaceOptions(cmd);
  addRetryOptions(cmd);
  addRunOptions(cmd);
  const fields = op.inputs.map((field) => new FieldOption(field));
  for (const option of fields) cmd.addOption(option);
  cmd.addHelpText(
    'after',
    `\nInput fields: ${op.inputs.map((f) => f.name).join(', ')} (flags are case-insensitive).\nOutput columns: ${outputColumns(op).join(', ')}\n`,
  );
  cmd.action(async () => {
    const input: Record<string, string> = {};
    for (const option of fields) {
      const value = cmd.getOptionValue(option.attributeName()) as string | undefined;
      if (value !== undefined) input[option.field.name] = value;
    }
    await action(op, cmd.opts<OperationFlags>(), input, cmd);
  });
  return cmd;
}

/** The files: what is read, how, and where the enriched file goes. */
function addFileOptions(cmd: Command, op: Operation): void {
  cmd
    .option('--in <file>', 'file to enrich (bulk run): CSV, .tsv, .xlsx, .jsonl; - for standard input')
    .option(
      '--out <file>',
      'where to write the enriched file, its kind by its extension (default: <in>.<operation>.<ext>)',
    )
    .addOption(
      new Option('--map <Field=Column>', 'feed a field from a column (repeatable)')
        .argParser((pair, previous: Record<string, string>) => ({ ...previous, ...parseMap([pair]) }))
        .default({}, 'none'),
    )
    .addOption(
      new Option('--fields <list>', 'output columns, comma separated, or "default" (default: all)').argParser(
        (list) => chosenColumns(op, list),
      ),
    )
    .addOption(
      new Option(
        '--encoding <name>',
        "the input's encoding: utf-8, utf-16le, utf-16be, windows-1252 (default: found)",
      ).argParser(parseEncoding),
    )
    .addOption(
      new Option(
        '--delimiter <char>',
        "the input's separator: , ; tab | (default: found; .tsv: tab)",
      ).argParser(parseDelimiter),
    )
    .option('--sheet <name>', "a workbook's sheet to read (default: the first)");
}

/** The answer cache, the shared answer store and its cap, and how old a reused answer may be. */
function addCacheOptions(cmd: Command): void {
  cmd
    .option('--cache <file>', `answer cache (default: ${CACHE_FILE} beside the output)`)
    .option(
      '--store <url>',
      `shared answer store, postgres://user:password@host:5432/db (or ${STORE_ENV}): a team pays once per person`,
    )
    .addOption(
      new Option(
        '--max-transactions-per-month <n>',
        `with --store: the store's cap per UTC month, every client counted (or ${MAX_PER_MONTH_ENV})`,
      ).argParser(monthlyCapFlag),
    )
    .addOption(
      new Option('--max-age <duration>', 'reuse cached answers this fresh: 30d, 12h, forever')
        .argParser((text) => parseDuration(text, '--max-age'))
        .default(parseDuration(DEFAULT_MAX_AGE, '--max-age'), DEFAULT_MAX_AGE),
    );
}

/** How fast requests go out: concurrency, rate, the remembered pace. */
function addPaceOptions(cmd: Command): void {
  cmd
    .addOption(
      new Option(
        '--concurrency <n|auto>',
        'requests at a time: auto finds what the service allows, a number fixes it',
      )
        .argParser(parseConcurrency)
        .default('auto'),
    )
    .addOption(
      new Option('--max-concurrency <n>', 'with auto: never more than this many at a time')
        .argParser(whole('--max-concurrency', 1, MAX_CONCURRENCY))
        .default(DEFAULT_MAX_CONCURRENCY),
    )
    .addOption(
      new Option(
        '--max-rate <n/s>',
        'never more than this many requests per second, e.g. 10/s or 600/m',
      ).argParser(parseRate),
    )
    .option(
      '--no-remember-pace',
      "with auto: start from the pace found from scratch, not from the last run's, and keep none",
    );
}

/** The budget, and how long and how often one request is tried. */
function addRetryOptions(cmd: Command): void {
  cmd
    .addOption(
      new Option('--max-transactions <n>', 'stop sending once this many transactions are spent').argParser(
        whole('--max-transactions', 0),
      ),
    )
    .addOption(
      new Option('--max-attempts <n>', 'tries per request on 5xx, 429 and network errors')
        .argParser(whole('--max-attempts', 1, 100))
        .default(DEFAULT_RETRY_POLICY.maxAttempts),
    )
    .addOption(
      new Option(
        '--max-retry-after <seconds>',
        'wait at most this long when the service says Retry-After; a longer wait stops the run',
      )
        .argParser(seconds('--max-retry-after', 0, 86_400))
        .default(DEFAULT_MAX_RETRY_AFTER_MS, String(DEFAULT_MAX_RETRY_AFTER_MS / 1000)),
    )
    .addOption(
      new Option(
        '--timeout <seconds>',
        'deadline of one attempt, from sending to the last byte of the answer',
      )
        .argParser((text) => parseTimeout(text))
        .default(30_000, '30'),
    );
}

/** What the run does and prints, and which service it calls. */
function addRunOptions(cmd: Command): void {
  cmd
    .option('--dry-run', 'count rows, invalid rows and the transactions a run would spend; send nothing')
    .option(
      '--retry-unreadable',
      'ask again for requests whose cached answer was paid for but unreadable (each costs a transaction again)',
    )
    .option('--force', 'replace an existing --out that is not an output of enrich (refused otherwise)')
    .option('--json', 'print the result (or the run summary) as JSON')
    .option('--quiet', 'no progress output')
    .addOption(
      new Option('--progress-every <seconds>', 'seconds between progress lines when not on a terminal')
        .argParser(seconds('--progress-every', 1))
        .default(10_000, '10'),
    )
    .option('--sandbox', 'start the embedded sandbox and use it (no key needed)')
    .option('--base-url <url>', 'base of the v2 operations (or ENRICH_BASE_URL)')
    .option('--base-url-v3 <url>', 'base of the v3 operations (or ENRICH_BASE_URL_V3)');
}

/**
 * Other names of the command: the title (`"Phone Lookup"`), and the id and title in lower and upper
 * case, with `_` or nothing between the words (`phonelookup`, `PHONE_LOOKUP`).
 */
// Help shows the first alias beside the command's name: one without spaces (auto_append), so that
// the line reads as something to type; the title ("Auto Append", quoted) works as well.
function namesOf(op: Operation): string[] {
  const names = new Set<string>();
  for (const name of [op.id.replace(/-/g, '_'), squash(op.id), op.title]) {
    for (const form of [name, name.toLowerCase(), name.toUpperCase()]) names.add(form);
  }
  names.delete(op.id);
  return [...names];
}
