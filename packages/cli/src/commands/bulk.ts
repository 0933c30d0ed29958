// `enrich <operation> --in leads.csv [--out out.csv]`: a bulk run of the CSV (or, with --dry-run,
// what it would spend), with Ctrl-C/SIGTERM handling, the closing report and the exit code.
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import {
  type BulkSummary,
  CACHE_FILE,
  cacheFolder,
  createHttpTransport,
  defaultCachePath,
  defaultOutputPath,
  distinctFiles,
  GRACE_MS,
  LEDGER_ENV,
  PACE_FILE,
  planBulk,
  type StoreFront,
} from '@enrich/bulk';
import { type Operation, outputColumns, STOP_REASONS } from '@enrich/core';
import { isBrokenPipe } from '../broken-pipe.js';
import { answerNamespace, type ConnectIo, type ConnectionFlags, connect, endpoints } from '../connection.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { Pipes } from '../pipes.js';
import { retainedMaxAge, runPrivacy } from '../privacy.js';
import { barProgress, lineProgress, type ProgressReporter } from '../progress.js';
import { bulkNotes, bulkReport, dryRunReport } from '../report.js';
import { runWithProgress } from '../run-with-progress.js';
import { ownControls, type Scrub } from '../scrub-io.js';
import { closeStore, monthlyCap, openSharedStore, storeUrl } from '../shared-store.js';
import { cliLedger, spendRecorder } from '../spend-ledger.js';
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

export async function bulkAction(
  op: Operation,
  flags: OperationFlags,
  inFlag: string,
  io: BulkIo,
  scrub: Scrub,
): Promise<ExitCode> {
  // The shared answer store, if one is given: checked and opened before any file is touched.
  const url = storeUrl(flags, io.env);
  const cap = monthlyCap(flags, io.env, url);
  const shared =
    url === undefined
      ? undefined
      : await openSharedStore(url, {
          namespace: answerNamespace(op, flags, io.env),
          maxAgeMs: retainedMaxAge(io.env, flags.maxAge),
          maxTransactionsPerMonth: cap,
        });
  try {
    const pipes = await Pipes.open(inFlag, flags.out, () => defaultOutputPath(inFlag, op), io);
    try {
      return await bulkRun(op, flags, pipes, io, scrub, shared);
    } finally {
      pipes.close();
    }
  } finally {
    await closeStore(shared, io.stderr, 'the answer cache');
  }
}

async function bulkRun(
  op: Operation,
  flags: OperationFlags,
  pipes: Pipes,
  io: BulkIo,
  scrub: Scrub,
  shared: StoreFront | undefined,
): Promise<ExitCode> {
  const { inPath, outPath } = pipes;
  // With --out -, the answer cache is in the working folder (the output's is a temporary one).
  const cachePath = resolve(io.cwd, flags.cache ?? (pipes.toStdout ? CACHE_FILE : defaultCachePath(outPath)));
  // With --out -, standard output is the data: the summary goes to standard error.
  const reportTo = pipes.toStdout ? io.stderr : io.stdout;
  // Compared as real paths (links resolved): the journal appended to the input, or the output
  // written over it, would destroy the user's data.
  const ledgerPath = cliLedger(io).path;
  distinctFiles([
    ['--in', inPath],
    ['--out', outPath],
    ['--cache', cachePath],
    [LEDGER_ENV, ledgerPath],
  ]);
  // People forgotten at their request are refused, the retention caps --max-age, and the journal
  // is registered for forget and held (privacy.ts); a dry run writes nothing.
  const privacy = await runPrivacy(io.env, {
    maxAgeMs: flags.maxAge,
    journal: flags.dryRun ? undefined : cachePath,
    storeUrl: storeUrl(flags, io.env),
  });
  if (privacy.note) io.stderr.write(`enrich: ${privacy.note}\n`);
  // The command's --sandbox, --base-url and --base-url-v3.
  const connection: ConnectionFlags = flags;
  const files = {
    op,
    inPath,
    cachePath,
    namespace: answerNamespace(op, connection, io.env),
    maxAgeMs: privacy.maxAgeMs,
    refuse: privacy.refuse,
    overrides: flags.map,
    layout: { encoding: flags.encoding, delimiter: flags.delimiter, sheet: flags.sheet },
    retryUnreadable: flags.retryUnreadable === true,
    sharedStore: shared,
    display: (path: string) =>
      pipes.name(path, (shown) => {
        const near = relative(io.cwd, shown);
        return near === '' || near.startsWith('..') || isAbsolute(near) ? shown : near;
      }),
  };

  if (flags.dryRun) {
    const summary = await planBulk({ ...files, maxTransactions: flags.maxTransactions });
    const text = flags.json ? jsonText(summary) : dryRunReport(op.title, summary, flags.maxTransactions);
    reportTo.write(`${text}\n`);
    return EXIT.ok;
  }

  const progress: ProgressReporter | undefined = flags.quiet
    ? undefined
    : io.stderr.isTTY
      ? barProgress(ownControls(io.stderr), op.title)
      : lineProgress(io.stderr, op.title, flags.progressEvery);
  // Every paid answer is recorded in the spend ledger: standard input as "-", a file by its base name.
  const spend = spendRecorder(io, op, endpoints(connection, io.env), flags.in);
  const controller = new AbortController();
  const abandon = new AbortController();
  io.signal?.addEventListener('abort', () => controller.abort(), { once: true });
  const onSignal = () => {
    if (controller.signal.aborted) {
      io.stderr.write(
        '\nQuit at once. Answers that had arrived are in the answer cache; requests still in flight may have been paid for, and a rerun asks for them again.\n',
      );
      spend.close();
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
  const conn = await connect(connection, io);
  if (flags.retryUnreadable) {
    io.stderr.write(
      '--retry-unreadable: requests whose cached answer was paid for but unreadable are asked again, and each costs one more transaction (add --dry-run to count them first).\n',
    );
  }
  try {
    const summary = await runWithProgress({
      ...files,
      outPath,
      ledgerPath,
      // The pace of the last run per service, in the user's cache folder (see the README's Pacing).
      pacePath: flags.rememberPace
        ? join(cacheFolder(io.env, process.platform, homedir()), PACE_FILE)
        : undefined,
      force: flags.force === true,
      columns: flags.fields?.columns ?? outputColumns(op),
      progress,
      signal: controller.signal,
      onPaid: (count) => spend.add(count),
      abandon,
      scrub,
      allExtras: flags.fields === undefined || flags.fields.all,
      sender: {
        settings: conn.settings,
        // Node's http/https rather than fetch: the same guarantees (no redirects, one deadline, a
        // capped body) at about half the CPU per request (bulk's http-transport.ts).
        transport: createHttpTransport({ timeoutMs: flags.timeout, signal: abandon.signal }),
        policy: retryPolicyOf(flags),
        concurrency: flags.concurrency,
        maxConcurrency: flags.maxConcurrency,
        maxRate: flags.maxRate,
        maxTransactions: flags.maxTransactions,
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
        now: Date.now,
        onRetry: () => undefined,
      },
    });
    const delivered = !summary.completed || (await deliver(pipes, io.stdout));
    report(op, summary, flags.json === true, reportTo);
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
        `Interrupted: ${summary.transactions} answers from this run are saved in ${cachePath}; ${outPath} was not written. Run the same command again to carry on.\n`,
      );
    }
    return exitCodeOf(summary);
  } finally {
    if (io.handleSignals) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    spend.close();
    await conn.close();
    // Whatever still holds the process (a socket the service keeps open) must not keep an
    // interrupted run alive: the exit code is set, so end shortly after (unref: only if needed).
    if (controller.signal.aborted && io.handleSignals) {
      setTimeout(() => process.exit(), 500).unref();
    }
  }
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
