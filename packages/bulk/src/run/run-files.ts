// What a run opens before it sends anything, and how it words a failure to write a file.
import { closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { openSource } from '../formats/open-source.js';
import { formatFor } from '../formats/output-kind.js';
import type { RowFormat } from '../formats/row-format.js';
import type { RowSource } from '../formats/row-source.js';
import { AnswerStore } from '../store/answer-store.js';
import { acquireLock, type FileLock } from '../store/file-lock.js';
import { BulkError, OutputInTheWay } from './bulk-error.js';
import type { BulkOptions } from './bulk-options.js';
import { checkRunFiles } from './file-guard.js';
import { outputHeader } from './output-columns.js';
import { mapInput, rowPlanner } from './row-planner.js';
import type { RunWiring } from './run-wiring.js';

type RowPlanner = ReturnType<typeof rowPlanner>;

// A run syncs its journal at most this often, each sync covering every answer written meanwhile.
// Each fdatasync is work for the kernel's journal on a machine that is also running the network; at
// this interval a run is as fast as one that does not sync (the CLI's bench/README.md). An answer's
// line is written (a kill keeps it) the moment it arrives; only its row waits up to this long to
// count as done.
const JOURNAL_SYNC_INTERVAL_MS = 50;

/** What a run opens before it sends anything: its input, its row planner, its output's format, its files. */
export interface OpenedRun {
  readonly input: RowSource;
  readonly plan: RowPlanner;
  readonly format: RowFormat;
  readonly store: AnswerStore;
  readonly outputLock: FileLock;
}

/**
 * Opens the input and plans its columns (the mapping is checked here), chooses the output's format
 * and opens the files; stops, with nothing sent, at the first that fails.
 */
export async function openRun(options: BulkOptions, wiring: RunWiring): Promise<OpenedRun> {
  const { op } = options;
  const { columns } = wiring;
  const input = await openSource(options.inPath, options.layout);
  let plan: RowPlanner;
  try {
    const mapping = mapInput(op, options.inPath, input.header, wiring.overrides);
    plan = rowPlanner(op, input.header, mapping, options.refuse);
  } catch (error) {
    input.close();
    throw error;
  }
  const format = formatFor(options.outPath, {
    inputKind: input.kind,
    inputHeader: input.header,
    header: outputHeader(op, input.header, columns),
    layout: input.layout,
    sheet: input.sheet,
  });
  return { input, plan, format, ...(await openFiles(options, wiring, format, () => input.close())) };
}

// The answer cache (locked, journal loaded) and the output's lock; stops before anything is sent.
// The output's format says what an output of ours looks like: an existing --out that is not one is
// refused.
async function openFiles(
  options: BulkOptions,
  wiring: RunWiring,
  format: RowFormat,
  closeInput: () => void,
): Promise<{ store: AnswerStore; outputLock: FileLock }> {
  try {
    checkRunFiles({ ...options, ledgerPath: wiring.ledgerPath });
    await checkOutputPath(options.outPath, format, options.force === true);
  } catch (error) {
    closeInput();
    throw error;
  }
  let store: AnswerStore;
  try {
    store = AnswerStore.open({
      path: options.cachePath,
      namespace: wiring.namespace,
      maxAgeMs: wiring.maxAgeMs,
      now: wiring.now,
      syncIntervalMs: JOURNAL_SYNC_INTERVAL_MS,
      ...(options.scrub ? { scrub: options.scrub } : {}),
      ...(options.rescueDir ? { rescueDir: options.rescueDir } : {}),
    });
  } catch (error) {
    closeInput();
    if (error instanceof BulkError) throw error;
    throw new BulkError(`Cannot use the answer cache ${options.cachePath}: ${(error as Error).message}`);
  }
  try {
    mkdirSync(dirname(options.outPath), { recursive: true });
    const outputLock = acquireLock(options.outPath, 'output');
    try {
      // The partial output can be created: a folder that is not writable is found now, not after
      // every row was paid for.
      closeSync(openSync(`${options.outPath}.partial`, 'a'));
    } catch (error) {
      outputLock.release();
      throw error;
    }
    return { store, outputLock };
  } catch (error) {
    closeInput();
    store.close();
    if (error instanceof BulkError) throw error;
    throw new BulkError(`Cannot write ${options.outPath}: ${(error as Error).message}`);
  }
}

export function describeError(error: Error | undefined): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC') return 'the disk is full';
  if (code === 'EDQUOT') return 'the disk quota is used up';
  return error?.message ?? 'unknown error';
}

/**
 * Refuses, before anything is sent, an --out that a run must not replace: a directory, a read-only
 * file, or (without `force`) an existing file that is not an output of ours. Ours means what the
 * format finds there is its own header (the input's columns, then the status column this run
 * writes: a rerun with other --fields still replaces it); anything else (another program's
 * document, a report, a journal) is the user's.
 */
export async function checkOutputPath(outPath: string, format: RowFormat, force: boolean): Promise<void> {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(outPath);
  } catch {
    return; // nothing there yet (a path that cannot be created is found when it is created)
  }
  if (stat.isDirectory()) {
    throw new BulkError(`${outPath} is a directory. Nothing was sent. Name a file with --out.`);
  }
  if ((stat.mode & 0o222) === 0) {
    throw new BulkError(
      `${outPath} is read-only. Nothing was sent. Make it writable if it may be replaced, or name another file with --out.`,
    );
  }
  if (force || (await format.isOurs(outPath).catch(() => false))) return;
  throw new OutputInTheWay(outPath);
}
