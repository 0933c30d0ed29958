// `enrich <operation> --in leads.csv [--out out.csv]`: a bulk run of the CSV (or, with --dry-run,
// what it would spend), with Ctrl-C/SIGTERM handling, the closing report and the exit code.
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import {
  type Bases,
  type BulkSummary,
  CACHE_FILE,
  type ClientLedger,
  cacheFolder,
  cacheNamespace,
  defaultCachePath,
  defaultOutputPath,
  distinctFiles,
  type FileOptions,
  GRACE_MS,
  LEDGER_ENV,
  PACE_FILE,
  planBulk,
  type StoreFront,
} from '@enrich/bulk';
import { type Operation, STOP_REASONS } from '@enrich/core';
import { isBrokenPipe } from '../broken-pipe.js';
import { type ConnectIo, connect, endpoints } from '../connection.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { Pipes } from '../pipes.js';
import { retainedMaxAge, runPrivacy } from '../privacy.js';
import { barProgress, lineProgress, type ProgressReporter } from '../progress.js';
import { bulkNotes, bulkReport, dryRunReport } from '../report.js';
import { runWithProgress } from '../run-with-progress.js';
import { ownControls, type Scrub } from '../scrub-io.js';
import { closeStore, monthlyCap, openSharedStore, storeUrl } from '../shared-store.js';
import { clientLedger } from '../spend-ledger.js';
import { jsonText } from '../terminal-text.js';
import { type OperationFlags, retryPolicyOf } from './operation.js';

export interface BulkIo extends ConnectIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly cwd: string;
  /** Aborting it stops a bulk run as Ctrl-C does. */
  readonly signal?: AbortSignal;
  /** Install SIGINT/SIGTERM handlers (the real command does; tests pass a signal instead). */
  readonly handleSignals?: boolean;
}

/** One bulk command: what each of its steps reads. */
interface BulkCommand {
  readonly op: Operation;
  readonly flags: OperationFlags;
  readonly io: BulkIo;
  readonly scrub: Scrub;
  readonly pipes: Pipes;
  readonly cachePath: string;
  /** With --out -, standard output is the data: the summary goes to standard error. */
  readonly reportTo: NodeJS.WritableStream;
}

export async function bulkAction(
  op: Operation,
  flags: OperationFlags,
  inFlag: string,
  io: BulkIo,
  scrub: Scrub,
): Promise<ExitCode> {
  // The bases, checked once: the cache namespace (the store's too) and, but for the sandbox's
  // port, where the requests go.
  const bases = endpoints(flags, io.env);
  // The shared answer store, if one is given: checked and opened before any file is touched.
  const url = storeUrl(flags, io.env);
  const cap = monthlyCap(flags, io.env, url);
  const shared =
    url === undefined
      ? undefined
      : await openSharedStore(url, {
          namespace: cacheNamespace(op, bases),
          maxAgeMs: retainedMaxAge(io.env, flags.maxAge),
          maxTransactionsPerMonth: cap,
        });
  try {
    const pipes = await Pipes.open(inFlag, flags.out, () => defaultOutputPath(inFlag, op), io);
    try {
      // With --out -, the answer cache is in the working folder (the output's is a temporary one).
      const cache = flags.cache ?? (pipes.toStdout ? CACHE_FILE : defaultCachePath(pipes.outPath));
      const reportTo = pipes.toStdout ? io.stderr : io.stdout;
      const command = { op, flags, io, scrub, pipes, cachePath: resolve(io.cwd, cache), reportTo };
      return await bulkRun(command, bases, shared);
    } finally {
      pipes.close();
    }
  } finally {
    await closeStore(shared, io.stderr, 'the answer cache');
  }
}

/** The files checked and the people's rights applied, then a dry run's plan or the run. */
async function bulkRun(
  command: BulkCommand,
  bases: Bases,
  shared: StoreFront | undefined,
): Promise<ExitCode> {
  const { op, flags, io, pipes, cachePath } = command;
  const ledger = clientLedger(io);
  // Compared as real paths (links resolved): the journal appended to the input, or the output
  // written over it, would destroy the user's data.
  distinctFiles([
    ['--in', pipes.inPath],
    ['--out', pipes.outPath],
    ['--cache', cachePath],
    [LEDGER_ENV, ledger.file.path],
  ]);
  // People forgotten at their request are refused, the retention caps --max-age, and the journal
  // is registered for forget and held (privacy.ts); a dry run writes nothing.
  const privacy = await runPrivacy(io.env, {
    maxAgeMs: flags.maxAge,
    journal: flags.dryRun ? undefined : cachePath,
    storeUrl: storeUrl(flags, io.env),
  });
  if (privacy.note) io.stderr.write(`enrich: ${privacy.note}\n`);
  const files: FileOptions = {
    op,
    inPath: pipes.inPath,
    cachePath,
    bases,
    maxAgeMs: privacy.maxAgeMs,
    refuse: privacy.refuse,
    overrides: flags.map,
    maxTransactions: flags.maxTransactions,
    layout: { encoding: flags.encoding, delimiter: flags.delimiter, sheet: flags.sheet },
    retryUnreadable: flags.retryUnreadable === true,
    sharedStore: shared,
    display: (path: string) =>
      pipes.name(path, (shown) => {
        const near = relative(io.cwd, shown);
        return near === '' || near.startsWith('..') || isAbsolute(near) ? shown : near;
      }),
  };
  if (!flags.dryRun) return sendRun(command, files, ledger);
  const plan = await planBulk(files);
  const text = flags.json ? jsonText(plan) : dryRunReport(op.title, plan, flags.maxTransactions);
  command.reportTo.write(`${text}\n`);
  return EXIT.ok;
}

/** The run: the engine sends, the terminal shows its progress, Ctrl-C stops it. */
async function sendRun(command: BulkCommand, files: FileOptions, ledger: ClientLedger): Promise<ExitCode> {
  const { op, flags, io } = command;
  const progress: ProgressReporter | undefined = flags.quiet
    ? undefined
    : io.stderr.isTTY
      ? barProgress(ownControls(io.stderr), op.title)
      : lineProgress(io.stderr, op.title, flags.progressEvery);
  const conn = await connect(flags, io, files.bases);
  const stop = interruptions(io, progress, ledger);
  if (flags.retryUnreadable) {
    io.stderr.write(
      '--retry-unreadable: requests whose cached answer was paid for but unreadable are asked again, and each costs one more transaction (add --dry-run to count them first).\n',
    );
  }
  try {
    const summary = await runWithProgress(
      {
        ...files,
        // The sandbox's own port (the bases checked before say only "the sandbox").
        bases: conn.bases,
        apiKey: conn.settings.apiKey,
        outPath: command.pipes.outPath,
        force: flags.force === true,
        columns: flags.fields?.columns,
        allExtras: flags.fields === undefined || flags.fields.all,
        scrub: command.scrub,
        // The pace of the last run per service, in the user's cache folder (see the README's Pacing).
        pacePath: flags.rememberPace
          ? join(cacheFolder(io.env, process.platform, homedir()), PACE_FILE)
          : undefined,
        // Every paid answer is recorded: standard input as "-", a file by its base name.
        ledger,
        ledgerName: flags.in,
        timeoutMs: flags.timeout,
        policy: retryPolicyOf(flags),
        concurrency: flags.concurrency,
        maxConcurrency: flags.maxConcurrency,
        maxRate: flags.maxRate,
        signal: stop.signal,
      },
      progress,
    );
    return await closing(command, summary);
  } finally {
    stop.dispose();
    await conn.close();
  }
}

/**
 * Ctrl-C and SIGTERM (or the tests' signal): the first stops the run (nothing more is sent, the
 * requests in flight get their grace); a second quits at once, after the ledger is written with
 * what the run counted so far.
 */
function interruptions(io: BulkIo, progress: ProgressReporter | undefined, ledger: ClientLedger) {
  const controller = new AbortController();
  io.signal?.addEventListener('abort', () => controller.abort(), { once: true });
  const onSignal = () => {
    if (controller.signal.aborted) {
      io.stderr.write(
        '\nQuit at once. Answers that had arrived are in the answer cache; requests still in flight may have been paid for, and a rerun asks for them again.\n',
      );
      ledger.flush();
      process.exit(EXIT.interrupted);
    }
    // The bar stays as it stood (its share, not 100 %, and the pace before the stop) on a line of
    // its own, and draws nothing more: what follows starts on a clean line (issue 40).
    const onFreshLine = progress?.interrupt() === true;
    io.stderr.write(
      `${onFreshLine ? '' : '\n'}Stopping: nothing more is sent; requests in flight get ${GRACE_MS / 1000} s to answer (press Ctrl-C again to quit at once).\n`,
    );
    controller.abort();
  };
  if (io.handleSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  return {
    signal: controller.signal,
    dispose(): void {
      if (!io.handleSignals) return;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // Whatever still holds the process (a socket the service keeps open) must not keep an
      // interrupted run alive: the exit code is set, so end shortly after (unref: only if needed).
      if (controller.signal.aborted) setTimeout(() => process.exit(), 500).unref();
    },
  };
}

/** The output delivered (with --out -), the summary and notes said, the exit code. */
async function closing(command: BulkCommand, summary: BulkSummary): Promise<ExitCode> {
  const { op, flags, io, pipes, cachePath } = command;
  const delivered = !summary.completed || (await deliver(pipes, io.stdout));
  report(op, summary, flags.json === true, command.reportTo);
  const notes = bulkNotes(summary, cachePath);
  if (notes) io.stderr.write(`${notes}\n`);
  if (!delivered) {
    io.stderr.write(
      `enrich: the reader of standard output closed the pipe before the whole output was written (broken pipe); every answer is in the answer cache ${cachePath}, so the same command again spends nothing for them.\n`,
    );
    return EXIT.brokenPipe;
  }
  if (!summary.unsaved && !summary.outputError && !summary.inputError && !summary.completed) {
    io.stderr.write(
      `Interrupted: ${summary.transactions} answers from this run are saved in ${cachePath}; ${pipes.outPath} was not written. Run the same command again to carry on.\n`,
    );
  }
  return exitCodeOf(summary);
}

/**
 * With `--out -`, the output down the pipe; false when its reader went away first (`| head -1`):
 * the run is over and paid for by then, so the summary is still said (on standard error).
 */
async function deliver(pipes: Pipes, stdout: NodeJS.WritableStream): Promise<boolean> {
  try {
    await pipes.deliver(stdout);
    return true;
  } catch (error) {
    if (isBrokenPipe(error)) return false;
    throw error;
  }
}

function report(op: Operation, summary: BulkSummary, json: boolean, to: NodeJS.WritableStream): void {
  if (!json) {
    to.write(`${bulkReport(op.title, summary)}\n`);
    return;
  }
  // The process's own peak memory and CPU time, for the benchmark and for capacity planning.
  const usage = process.resourceUsage();
  const maxRssBytes = usage.maxRSS * 1024;
  const cpuMs = Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000);
  to.write(`${jsonText({ ...summary, maxRssBytes, cpuMs })}\n`);
}

/** The exit code of a finished (or stopped) run; a stop reason's code is in core's STOP_REASONS. */
function exitCodeOf(summary: BulkSummary): ExitCode {
  if (summary.unsaved || summary.outputError) return EXIT.storage;
  if (summary.inputError) return EXIT.usage;
  if (!summary.completed) return EXIT.interrupted;
  if (summary.stopped) return STOP_REASONS[summary.stopped].exitCode;
  return summary.unreadable > 0 || summary.errors > 0 ? EXIT.service : EXIT.ok;
}
