// What a run opens before it sends anything, and how it words a failure to write a file.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { AnswerStore } from './answer-store.js';
import { BulkError } from './bulk-error.js';
import type { BulkOptions } from './bulk-options.js';
import { acquireLock, type FileLock } from './file-lock.js';

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
