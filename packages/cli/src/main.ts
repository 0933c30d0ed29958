// The `enrich` command line: `enrich <operation> [--Field value ...]` for one call, or
// `enrich <operation> --in file.csv [--out file.csv]` for a bulk run. Returns the exit code.
import { basename, dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import {
  API_KEY_ENV,
  chooseColumns,
  DEFAULT_RETRY_POLICY,
  findOperation,
  type InputField,
  OPERATIONS,
  type Operation,
  outputColumns,
  squash,
} from '@enrich/core';
import { Command, CommanderError, Option } from 'commander';
import { GRACE_MS, runBulk } from './bulk.js';
import { runCheckKey } from './check-key.js';
import { type ConnectIo, connect, endpoints, legacyNamespaces, namespaceFor } from './connection.js';
import { dryRun } from './dry-run.js';
import { CommandError, EXIT, type ExitCode } from './exit-codes.js';
import { runOneOff } from './one-off.js';
import { parseDuration, parseMap, parseRate, parseWhole } from './options.js';
import { barProgress, lineProgress, type ProgressReporter } from './progress.js';
import { bulkNotes, bulkReport, dryRunReport } from './report.js';
import { distinctFiles } from './same-file.js';
import { keyScrubber, type Scrub, scrubbedStream } from './scrub-io.js';
import { MAX_RETRY_AFTER_MS } from './sender.js';
import { bulkTransport } from './transport.js';
import { cliVersion } from './version.js';

export interface Io extends ConnectIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly cwd: string;
  /** Aborting it stops a bulk run as Ctrl-C does. */
  readonly signal?: AbortSignal;
  /** Install SIGINT/SIGTERM handlers (the real command does; tests pass a signal instead). */
  readonly handleSignals?: boolean;
}

export const DEFAULT_CONCURRENCY = 8;
export const DEFAULT_MAX_AGE = '30d';
export const CACHE_FILE = '.enrich-cache.jsonl';

// Options shared by every operation; anything else after `--` names an input field.
const COMMON = [
  'in',
  'out',
  'map',
  'fields',
  'cache',
  'max-age',
  'concurrency',
  'rate',
  'max-transactions',
  'max-attempts',
  'max-retry-after',
  'timeout',
  'dry-run',
  'retry-unreadable',
  'json',
  'quiet',
  'progress-every',
  'sandbox',
  'base-url',
  'base-url-v3',
  'help',
  'version',
];

export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    handleSignals: true,
  };
}

export async function main(argv: readonly string[], given: Io = processIo()): Promise<number> {
  // Everything printed passes through the key scrubber (a key typed at the prompt is added).
  const scrub = keyScrubber([given.env[API_KEY_ENV]]);
  const io: Io = {
    ...given,
    stdout: scrubbedStream(given.stdout, scrub),
    stderr: scrubbedStream(given.stderr, scrub),
    onSecret: (secret) => scrub.add(secret),
  };
  try {
    const [first, ...rest] = argv;
    if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
      io.stdout.write(overview());
      return first === undefined ? EXIT.usage : EXIT.ok;
    }
    if (first === '--version' || first === '-V') {
      io.stdout.write(`${cliVersion()}\n`);
      return EXIT.ok;
    }
    if (first === 'check-key') return await runCheckKey(rest, io);
    const op = findOperation(first);
    if (!op) {
      io.stderr.write(`enrich: unknown operation "${first}". The operations are:\n${operationList()}\n`);
      return EXIT.usage;
    }
    return await runOperation(op, rest, io, scrub);
  } catch (error) {
    if (error instanceof CommandError) {
      io.stderr.write(`enrich: ${error.message}\n`);
      return error.exitCode;
    }
    io.stderr.write(`enrich: unexpected error: ${error instanceof Error ? error.stack : String(error)}\n`);
    return EXIT.internal;
  }
}

/** The flag for a field: the API's spelling, with `_` as `-` (`--Phone`, `--LName`, `--last-name`). */
export function flagOf(field: InputField): string {
  return field.name.replace(/_/g, '-');
}

/** Rewrites `--phone`, `--PHONE`, `--last_name`, `--first-name` to the field's own flag. */
export function normaliseFieldFlags(op: Operation, args: readonly string[]): string[] {
  const out: string[] = [];
  let literal = false;
  for (const arg of args) {
    if (literal || !arg.startsWith('--') || arg === '--') {
      if (arg === '--') literal = true;
      out.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const field = COMMON.includes(name) ? undefined : fieldNamed(op, name);
    out.push(field ? `--${flagOf(field)}${eq < 0 ? '' : arg.slice(eq)}` : arg);
  }
  return out;
}

function fieldNamed(op: Operation, name: string): InputField | undefined {
  const s = squash(name);
  return (
    op.inputs.find((f) => squash(f.name) === s) ??
    op.inputs.find((f) => f.aliases.some((alias) => squash(alias) === s))
  );
}

function buildCommand(op: Operation, io: Io): Command {
  const collect = (value: string, previous: string[]) => [...previous, value];
  const cmd = new Command(`enrich ${op.id}`)
    .description(`${op.title}: ${op.category} (${op.version} ${op.path})`)
    .usage('[--Field value ...] | --in file.csv [--out file.csv] [options]')
    .option('--in <file>', 'CSV file to enrich (bulk run)')
    .option('--out <file>', 'where to write the enriched CSV (default: <in>.<operation>.csv)')
    .option('--map <Field=Column>', 'feed a field from a column (repeatable)', collect, [] as string[])
    .option('--fields <list>', 'output columns, comma separated, or "default" (default: all)')
    .option('--cache <file>', `answer cache (default: ${CACHE_FILE} beside the output)`)
    .option('--max-age <duration>', 'reuse cached answers this fresh: 30d, 12h, forever', DEFAULT_MAX_AGE)
    .option('--concurrency <n>', 'requests at a time', String(DEFAULT_CONCURRENCY))
    .option('--rate <n/s>', 'at most this many requests per second, e.g. 10/s or 600/m')
    .option('--max-transactions <n>', 'stop sending once this many transactions are spent')
    .option(
      '--max-attempts <n>',
      'tries per request on 5xx, 429 and network errors',
      String(DEFAULT_RETRY_POLICY.maxAttempts),
    )
    .option(
      '--max-retry-after <seconds>',
      'wait at most this long when the service says Retry-After; a longer wait stops the run',
      String(MAX_RETRY_AFTER_MS / 1000),
    )
    .option(
      '--timeout <seconds>',
      'deadline of one attempt, from sending to the last byte of the answer',
      '30',
    )
    .option('--dry-run', 'count rows, invalid rows and the transactions a run would spend; send nothing')
    .option(
      '--retry-unreadable',
      'ask again for requests whose cached answer was paid for but unreadable (each costs a transaction again)',
    )
    .option('--json', 'print the result (or the run summary) as JSON')
    .option('--quiet', 'no progress output')
    .option('--progress-every <seconds>', 'seconds between progress lines when not on a terminal', '10')
    .option('--sandbox', 'start the embedded sandbox and use it (no key needed)')
    .option('--base-url <url>', 'base of the v2 operations (or ENRICH_BASE_URL)')
    .option('--base-url-v3 <url>', 'base of the v3 operations (or ENRICH_BASE_URL_V3)');
  for (const field of op.inputs) {
    const bound = field.maxLength === undefined ? '' : `, at most ${field.maxLength} characters`;
    cmd.addOption(new Option(`--${flagOf(field)} <value>`, `${field.label}${bound}`));
  }
  cmd.addHelpText(
    'after',
    `\nInput fields: ${op.inputs.map((f) => f.name).join(', ')} (flags are case-insensitive).\nOutput columns: ${outputColumns(op).join(', ')}\n`,
  );
  cmd.exitOverride();
  cmd.configureOutput({
    writeOut: (text) => io.stdout.write(text),
    writeErr: (text) => io.stderr.write(text),
  });
  return cmd;
}

async function runOperation(op: Operation, args: readonly string[], io: Io, scrub: Scrub): Promise<number> {
  const cmd = buildCommand(op, io);
  try {
    await cmd.parseAsync(normaliseFieldFlags(op, args), { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.help'
        ? EXIT.ok
        : EXIT.usage;
    }
    throw error;
  }
  const o = cmd.opts<Record<string, string | string[] | boolean | undefined>>();
  const str = (name: string) => o[name] as string | undefined;
  const input: Record<string, string> = {};
  for (const field of op.inputs) {
    const option = cmd.options.find((opt) => opt.long === `--${flagOf(field)}`);
    const value = option ? (cmd.getOptionValue(option.attributeName()) as string | undefined) : undefined;
    if (value !== undefined) input[field.name] = value;
  }
  const timeoutMs = parseWhole(str('timeout') ?? '', '--timeout', 1, 3600) * 1000;
  const policy = {
    ...DEFAULT_RETRY_POLICY,
    maxAttempts: parseWhole(str('maxAttempts') ?? '', '--max-attempts', 1, 100),
    maxRetryAfterMs: parseWhole(str('maxRetryAfter') ?? '', '--max-retry-after', 0, 86_400) * 1000,
  };
  const connection = { sandbox: o.sandbox === true, baseUrl: str('baseUrl'), baseUrlV3: str('baseUrlV3') };
  const json = o.json === true;
  const fieldsFlag = str('fields');
  const chosen = fieldsFlag === undefined ? undefined : chosenColumns(op, fieldsFlag);
  const columns = chosen?.columns;
  const retryUnreadable = o.retryUnreadable === true;
  if (chosen && chosen.extras.length > 0) {
    io.stderr.write(
      `Note: ${chosen.extras.join(', ')} ${chosen.extras.length === 1 ? 'is' : 'are'} not in the API description of ${op.title}; filled from answers that carry ${chosen.extras.length === 1 ? 'it' : 'them'} (empty otherwise).\n`,
    );
  }

  const inFlag = str('in');
  if (inFlag === undefined) {
    if (Object.keys(input).length === 0) {
      io.stderr.write(
        `enrich: give the input as flags (${op.inputs.map((f) => `--${flagOf(f)}`).join(', ')}) or a CSV with --in.\n`,
      );
      cmd.outputHelp({ error: true });
      return EXIT.usage;
    }
    const cacheFlag = str('cache');
    const cache = cacheFlag
      ? {
          path: resolve(io.cwd, cacheFlag),
          namespace: namespaceFor(op, endpoints(connection, io.env)),
          alsoReads: legacyNamespaces(op, endpoints(connection, io.env)),
          scrub,
          maxAgeMs: parseDuration(str('maxAge') ?? DEFAULT_MAX_AGE, '--max-age'),
        }
      : undefined;
    return runOneOff({ op, input, connection, json, columns, policy, timeoutMs, cache, retryUnreadable, io });
  }
  if (Object.keys(input).length > 0) {
    throw new CommandError(
      `give either field values (${Object.keys(input).join(', ')}) or --in, not both`,
      EXIT.usage,
    );
  }

  const inPath = resolve(io.cwd, inFlag);
  const outPath = resolve(io.cwd, str('out') ?? defaultOut(inFlag, op));
  const cachePath = resolve(io.cwd, str('cache') ?? join(dirname(outPath), CACHE_FILE));
  // Compared as real paths (links resolved): the journal appended to the input, or the output
  // written over it, would destroy the user's data.
  distinctFiles([
    ['--in', inPath],
    ['--out', outPath],
    ['--cache', cachePath],
  ]);
  const maxAgeMs = parseDuration(str('maxAge') ?? DEFAULT_MAX_AGE, '--max-age');
  const overrides = parseMap((o.map as string[] | undefined) ?? []);
  const budgetFlag = str('maxTransactions');
  const maxTransactions =
    budgetFlag === undefined ? undefined : parseWhole(budgetFlag, '--max-transactions', 0);
  const where = endpoints(connection, io.env);
  const namespace = namespaceFor(op, where);
  const alsoReads = legacyNamespaces(op, where);
  const display = (path: string) => {
    const near = relative(io.cwd, path);
    return near === '' || near.startsWith('..') || isAbsolute(near) ? path : near;
  };

  if (o.dryRun) {
    const summary = await dryRun({
      op,
      inPath,
      cachePath,
      namespace,
      alsoReads,
      maxAgeMs,
      overrides,
      maxTransactions,
      retryUnreadable,
      display,
    });
    io.stdout.write(`${json ? JSON.stringify(summary) : dryRunReport(op.title, summary, maxTransactions)}\n`);
    return EXIT.ok;
  }

  const concurrency = parseWhole(str('concurrency') ?? '', '--concurrency', 1, 256);
  const rateFlag = str('rate');
  const ratePerSecond = rateFlag === undefined ? undefined : parseRate(rateFlag);
  const progressEveryMs = parseWhole(str('progressEvery') ?? '', '--progress-every', 1) * 1000;
  const progress: ProgressReporter | undefined = o.quiet
    ? undefined
    : io.stderr.isTTY
      ? barProgress(io.stderr, op.title)
      : lineProgress(io.stderr, op.title, progressEveryMs);

  const controller = new AbortController();
  const abandon = new AbortController();
  io.signal?.addEventListener('abort', () => controller.abort(), { once: true });
  const onSignal = () => {
    if (controller.signal.aborted) {
      io.stderr.write(
        '\nQuit at once. Answers that had arrived are in the answer cache; requests still in flight may have been paid for, and a rerun asks for them again.\n',
      );
      process.exit(EXIT.interrupted);
    }
    io.stderr.write(
      `\nStopping: nothing more is sent; requests in flight get ${GRACE_MS / 1000} s to answer (press Ctrl-C again to quit at once).\n`,
    );
    controller.abort();
  };
  if (io.handleSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  const conn = await connect(connection, io);
  if (retryUnreadable) {
    io.stderr.write(
      '--retry-unreadable: requests whose cached answer was paid for but unreadable are asked again, and each costs one more transaction (add --dry-run to count them first).\n',
    );
  }
  try {
    const summary = await runBulk({
      op,
      inPath,
      outPath,
      cachePath,
      display,
      namespace,
      alsoReads,
      maxAgeMs,
      columns: columns ?? outputColumns(op),
      overrides,
      progress,
      signal: controller.signal,
      abandon,
      scrub,
      allExtras: chosen === undefined || chosen.all,
      retryUnreadable,
      sender: {
        settings: conn.settings,
        transport: bulkTransport(timeoutMs, abandon.signal),
        policy,
        concurrency,
        ratePerSecond,
        maxTransactions,
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
        now: Date.now,
        onRetry: () => undefined,
      },
    });
    if (json) {
      // The process's own peak memory and CPU time, for the benchmark and for capacity planning.
      const usage = process.resourceUsage();
      const maxRssBytes = usage.maxRSS * 1024;
      const cpuMs = Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000);
      io.stdout.write(`${JSON.stringify({ ...summary, maxRssBytes, cpuMs })}\n`);
    } else {
      io.stdout.write(`${bulkReport(op.title, summary)}\n`);
    }
    const notes = bulkNotes(summary, cachePath);
    if (notes) io.stderr.write(`${notes}\n`);
    if (summary.unsaved || summary.outputError) return EXIT.storage;
    if (summary.completed && summary.unreadable > 0 && !summary.stopped) return EXIT.service;
    if (!summary.completed) {
      io.stderr.write(
        `Interrupted: ${summary.transactions} answers from this run are saved in ${cachePath}; ${outPath} was not written. Run the same command again to carry on.\n`,
      );
      return EXIT.interrupted;
    }
    return bulkExitCode(summary.stopped, summary.errors);
  } finally {
    if (io.handleSignals) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    await conn.close();
    // Whatever still holds the process (a socket the service keeps open) must not keep an
    // interrupted run alive: the exit code is set, so end shortly after (unref: only if needed).
    if (controller.signal.aborted && io.handleSignals) {
      setTimeout(() => process.exit(), 500).unref();
    }
  }
}

function bulkExitCode(stopped: string | undefined, errors: number): ExitCode {
  switch (stopped) {
    case 'budget':
      return EXIT.budget;
    case 'auth':
      return EXIT.auth;
    case 'allowance':
      return EXIT.allowance;
    case 'service':
      return EXIT.service;
    default:
      return errors > 0 ? EXIT.service : EXIT.ok;
  }
}

interface ChosenColumns {
  readonly columns: readonly string[];
  /** Names that are not documented columns: fields an answer may carry beyond the description. */
  readonly extras: readonly string[];
  /** Every column, and every extra field that turns up. */
  readonly all: boolean;
}

/**
 * --fields: documented columns (any case), "all", "default", or names the description does not
 * have, which are taken as extra fields the service may send (DID, telcoName, ...).
 */
function chosenColumns(op: Operation, list: string): ChosenColumns {
  const t = list.trim().toLowerCase();
  if (t === 'all') return { columns: outputColumns(op), extras: [], all: true };
  if (t === 'default') return { columns: op.defaultColumns, extras: [], all: false };
  const columns: string[] = [];
  const extras: string[] = [];
  for (const name of list.split(',').map((n) => n.trim())) {
    if (name === '') continue;
    const one = chooseColumns(op, name);
    if (one.ok) columns.push(...one.columns);
    else if (/^[A-Za-z_][\w.-]{0,63}$/.test(name)) {
      columns.push(name);
      extras.push(name);
    } else throw new CommandError(one.message, EXIT.usage);
  }
  if (columns.length === 0) throw new CommandError('--fields names no column', EXIT.usage);
  return { columns, extras, all: false };
}

function defaultOut(inPath: string, op: Operation): string {
  const ext = extname(inPath);
  return join(dirname(inPath), `${basename(inPath, ext)}.${op.id}${ext || '.csv'}`);
}

function operationList(): string {
  return OPERATIONS.map(
    (op) =>
      `  ${op.id.padEnd(20)} ${op.title.padEnd(20)} ${op.inputs.map((f) => `--${flagOf(f)}`).join(' ')}`,
  ).join('\n');
}

function overview(): string {
  return `enrich: contact-data enrichment from the command line

Usage:
  enrich <operation> --Phone 5550102030            one call, printed as a table (--json for JSON)
  enrich <operation> --in leads.csv --out out.csv  enrich every row of a CSV (resumable)
  enrich <operation> --in leads.csv --dry-run      what a run would spend; sends nothing
  enrich <operation> --help                        the operation's fields and every option
  enrich check-key                                 is the key accepted by each base? (free: nothing is spent)

Operations (by id or title):
${operationList()}

Key: ENRICH_API_KEY, or a prompt. Service: --base-url/--base-url-v3 or ENRICH_BASE_URL/ENRICH_BASE_URL_V3.
Try it without a key: add --sandbox to use the embedded sandbox.
`;
}
