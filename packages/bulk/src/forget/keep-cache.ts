// The one call a client makes before it opens an answer journal (issue 38): names the journal in the
// user's registry (so that forget and held find it), reads the retention (older answers are not used:
// the client takes the shorter of it and its own max age), and compacts the journal when it was not
// compacted today: answers older than the retention are removed, crash-safe and under the journal's
// lock (journal-rewrite.ts). A journal another run holds is left for the next run; a registry that
// cannot be written is said, never fatal.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { BulkError } from '../run/bulk-error.js';
import { noteCompacted, registerCache, registeredCaches } from './cache-registry.js';
import { rewriteJournal } from './journal-rewrite.js';
import { isOlder } from './local-stores.js';
import { retentionMs } from './retention.js';

export interface KeptCache {
  /** The retention in ms: no answer older than this may be used. */
  readonly retentionMs: number;
  /** Answers removed by compacting now (0 when it was not compacted). */
  readonly pruned: number;
  /** What could not be done, for the client to say (the registry could not be written). */
  readonly problem?: string;
}

const DAY_MS = 86_400_000;

export async function keepCache(dataDir: string, cachePath: string, now = Date.now()): Promise<KeptCache> {
  const retention = retentionMs(dataDir);
  const path = resolve(cachePath);
  // Not a file (a folder given as --cache): the run refuses it; nothing to keep track of.
  if (existsSync(path) && !statSync(path).isFile()) return { retentionMs: retention, pruned: 0 };
  const compactedAt = registeredCaches(dataDir).find((c) => c.path === path)?.compactedAt;
  const failed = registerCache(dataDir, path, now);
  const problem = failed
    ? `the registry of answer caches could not be written (${failed.message})`
    : undefined;
  let pruned = 0;
  if (existsSync(path) && (compactedAt === undefined || now - compactedAt >= DAY_MS)) {
    try {
      pruned = (await rewriteJournal(path, (line) => isOlder(line, now - retention), { lockWaitMs: 0 }))
        .removed;
      noteCompacted(dataDir, path, now);
    } catch (error) {
      // Held by another run: it is compacted by the next run that finds it free.
      if (!(error instanceof BulkError)) throw error;
    }
  }
  return { retentionMs: retention, pruned, ...(problem ? { problem } : {}) };
}
