// What a run opens before it sends anything, and how it words a failure to write a file.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { AnswerStore } from './answer-store.js';
import { BulkError } from './bulk-error.js';
import type { BulkOptions } from './bulk-options.js';
import { acquireLock, type FileLock } from './file-lock.js';

// A run syncs its journal at most this often, each sync covering every answer written meanwhile.
// Each fdatasync is work for the kernel's journal on a machine that is also running the network:
// on 6,400 requests at the benchmark's latency and concurrency, syncing every 50 ms rather than
// every 10 ms made the run 1% faster, as fast as not syncing at all. An answer's line is written
// (a kill keeps it) the moment it arrives; only its row waits up to this long to count as done.
const JOURNAL_SYNC_INTERVAL_MS = 50;

// The answer cache (locked, journal loaded) and the output's lock; stops before anything is sent.
export function openFiles(
  options: BulkOptions,
  closeInput: () => void,
): { store: AnswerStore; outputLock: FileLock } {
  let store: AnswerStore;
  try {
    store = AnswerStore.open({
      path: options.cachePath,
      namespace: options.namespace,
      maxAgeMs: options.maxAgeMs,
      now: options.sender.now,
      syncIntervalMs: JOURNAL_SYNC_INTERVAL_MS,
      ...(options.alsoReads ? { alsoReads: options.alsoReads } : {}),
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
    return { store, outputLock: acquireLock(options.outPath, 'output') };
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
