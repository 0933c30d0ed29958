// `enrich spend`: what the toolkit spent, from the spend ledger every client appends to (core's
// ledger.ts, @enrich/bulk's ledger-file.ts): paid transactions per UTC month or day, per service
// origin and operation. Free and offline: it reads one local file and needs no key.
//
// Periods are UTC because providers invoice by UTC; each service is totalled apart (the embedded
// sandbox, which bills nothing, is never added to a real service's spend).
//
// With --store, the shared answer store's spend table instead (spend-store.ts): what every client and
// instance of the team spent through it, per month, service and operation.
import { LEDGER_ENV, LedgerNotAFile, STORE_ENV } from '@enrich/bulk';
import {
  grandTotals,
  isLocalOrigin,
  originTotals,
  type SpendPeriod,
  type SpendRow,
  sinceProblem,
  spendTotals,
} from '@enrich/core';
import { type Command, Option } from 'commander';
import { CommandError, EXIT, type ExitCode } from '../exit-codes.js';
import { cliLedger } from '../spend-ledger.js';
import { grouped, jsonText, printable } from '../terminal-text.js';
import { spendCsv, storeSpendAction } from './spend-store.js';

export interface SpendIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
}

interface SpendFlags {
  readonly by: SpendPeriod;
  readonly since?: string;
  readonly json?: boolean;
  readonly csv?: boolean;
  /** --store [url]: the shared store's spend table (the URL of ENRICH_STORE when none is given). */
  readonly store?: string | true;
}

/** Adds `enrich spend` to `program`; `done` receives the exit code. */
export function addSpendCommand(program: Command, io: SpendIo, done: (code: ExitCode) => void): Command {
  return program
    .command('spend')
    .description(
      'What was spent, from the spend ledger: paid transactions per month (or day), service and operation, in UTC. Free; no key needed',
    )
    .addOption(
      new Option('--by <period>', 'total by month or by day (UTC)')
        .choices(['month', 'day'])
        .default('month'),
    )
    .addOption(
      new Option('--since <period>', 'only from this UTC month or day on: YYYY-MM or YYYY-MM-DD').argParser(
        (text) => {
          const problem = sinceProblem(text);
          if (problem) throw new CommandError(`--since ${problem}`, EXIT.usage);
          return text;
        },
      ),
    )
    .addOption(new Option('--json', 'print the rows and totals as JSON').conflicts('csv'))
    .option('--csv', 'print the rows as CSV: period,origin,operation,transactions')
    .option(
      '--store [url]',
      `the shared answer store's spend table instead (every client of the team; per month): its URL, or ${STORE_ENV}'s`,
    )
    .action(async (flags: SpendFlags) =>
      done(flags.store === undefined ? spendAction(flags, io) : await storeSpendAction(flags, io, table)),
    );
}

function spendAction(flags: SpendFlags, io: SpendIo): ExitCode {
  const ledger = cliLedger(io);
  let read: ReturnType<typeof ledger.read>;
  try {
    read = ledger.read();
  } catch (error) {
    if (error instanceof LedgerNotAFile) throw new CommandError(notAFile(error, io.env), EXIT.usage);
    throw new CommandError(
      `the spend ledger ${ledger.path} could not be read: ${(error as Error).message}`,
      EXIT.usage,
    );
  }
  const rows = spendTotals(read.entries, { by: flags.by, since: flags.since });
  const totals = originTotals(rows);
  const skipped =
    read.skipped === 0
      ? ''
      : read.skipped === 1
        ? '1 unreadable line was skipped (torn by a crash, or not a ledger line).'
        : `${grouped(read.skipped)} unreadable lines were skipped (torn by a crash, or not ledger lines).`;
  if (flags.json) {
    io.stdout.write(
      `${jsonText({
        ledger: ledger.path,
        timeZone: 'UTC',
        by: flags.by,
        since: flags.since ?? null,
        rows,
        totals,
        transactions: totals.reduce((sum, t) => sum + t.transactions, 0),
        ...grandTotals(rows),
        skipped: read.skipped,
      })}\n`,
    );
    return EXIT.ok;
  }
  if (flags.csv) {
    io.stdout.write(`${spendCsv(rows)}\n`);
    io.stderr.write(`From the spend ledger ${ledger.path}; periods in UTC.${skipped ? ` ${skipped}` : ''}\n`);
    return EXIT.ok;
  }
  const lines = [`Spend ledger: ${ledger.path}`];
  if (rows.length === 0) {
    lines.push(
      read.entries.length === 0
        ? 'No paid transactions are recorded yet.'
        : `No paid transactions are recorded since ${flags.since}.`,
    );
  } else {
    lines.push(
      `Paid transactions by ${flags.by} (UTC), per service and operation${flags.since ? `, since ${flags.since}` : ''}:`,
      '',
      table(rows, totals),
    );
  }
  if (skipped) lines.push('', skipped);
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}

/** The rows, then a total line per service (never one sum of them all: a sandbox bills nothing). */
function table(
  rows: readonly SpendRow[],
  totals: ReturnType<typeof originTotals>,
  header: readonly string[] = ['period', 'origin', 'operation', 'transactions'],
): string {
  const cells = [
    header,
    ...rows.map((r) => [r.period, printable(r.origin), r.operation, grouped(r.transactions)]),
    ...totals.map((t) => ['total', printable(t.origin), '', grouped(t.transactions)]),
    ...grand(rows).cells,
  ];
  const notes = [
    ...cells.slice(0, 1 + rows.length).map(() => ''),
    ...totals.map((t) => (isLocalOrigin(t.origin) ? LOCAL_NOTE : '')),
    ...grand(rows).notes,
  ];
  const widths = [0, 1, 2, 3].map((i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[], i: number) =>
    `${row
      .map((cell, c) => (c === 3 ? cell.padStart(widths[3] ?? 0) : cell.padEnd(widths[c] ?? 0)))
      .join('  ')}${notes[i]}`.trimEnd();
  return cells.map(line).join('\n');
}

// A ledger that is no regular file (a device, a FIFO, a folder) is refused before a byte is read
// (reading /dev/zero never ends); the message names where the path came from, the variable if set.
function notAFile(error: LedgerNotAFile, env: SpendIo['env']): string {
  const rule = 'the spend ledger must be a regular file, which enrich appends what each command spends to';
  if (env[LEDGER_ENV]?.trim()) {
    return `${LEDGER_ENV}=${error.path} names ${error.kind}, not a regular file: ${rule}. Set ${LEDGER_ENV} to a file's path, or unset it for the default ledger in your data folder.`;
  }
  return `${error.message}: ${rule}. Move it aside, or set ${LEDGER_ENV} to a file's path.`;
}

/** Beside a sandbox's total: a server on this machine (core's isLocalOrigin) bills nothing. */
const LOCAL_NOTE = '  (a sandbox on this machine: nothing billed)';

/**
 * The grand totals under the per-service ones, and their notes: what real services may bill, and
 * what sandboxes on this machine counted, never added together (issue 40).
 */
function grand(rows: readonly SpendRow[]): { cells: string[][]; notes: string[] } {
  const { billable, local } = grandTotals(rows);
  const cells = [['total', 'all real services', '', grouped(billable)]];
  const notes = ['  (what may be billed)'];
  if (local > 0) {
    cells.push(['total', 'all sandboxes', '', grouped(local)]);
    notes.push('  (nothing billed)');
  }
  return { cells, notes };
}
