// A quoted file's run through the shared bulk engine (runBulk), capped at the quote's figure: the
// CLI's run, resumable, deduplicated, paced from the last run's pace, its output written whole or
// not at all; every paid answer recorded in the ledger with the input's base name.
import {
  BulkError,
  cacheNamespace,
  createHttpTransport,
  FileInUse,
  OutputInTheWay,
  runBulk,
} from '@enrich/bulk';
import { abortableSleep, DEFAULT_RETRY_POLICY, outputColumns } from '@enrich/core';
import { MAX_AGE_MS, STOP_GRACE_MS } from '../config.js';
import type { ToolContext } from './context.js';
import { sharedStoreFor } from './file-plan.js';
import type { FileRequest } from './file-request.js';

const sleep = (ms: number) => abortableSleep(ms);

/** The run's summary, or why it did not run (nothing was spent). */
export async function runFile(request: FileRequest, limit: number, ctx: ToolContext) {
  const { connection, config, scrub } = ctx;
  if (!connection.settings) return 'No API key.';
  const shared = await sharedStoreFor(request.op, ctx);
  if (typeof shared === 'string') return shared;
  const abandon = new AbortController();
  const spend = ctx.ledger.recorder(request.op, connection.bases, request.inPath);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        return await runBulk(
          {
            op: request.op,
            inPath: request.inPath,
            outPath: request.outPath,
            cachePath: config.cachePath,
            ledgerPath: config.ledgerPath,
            // Starts from the pace of the last run against the service, and keeps this one's.
            pacePath: config.pacePath,
            namespace: cacheNamespace(request.op, connection.bases),
            maxAgeMs: MAX_AGE_MS,
            columns: outputColumns(request.op),
            overrides: request.map,
            scrub,
            allExtras: true,
            sharedStore: shared,
            refuse: await ctx.privacy?.refuse(),
            abandon,
            graceMs: STOP_GRACE_MS,
            sender: {
              settings: connection.settings,
              transport: createHttpTransport({ timeoutMs: 30_000, signal: abandon.signal }),
              policy: DEFAULT_RETRY_POLICY,
              concurrency: 'auto',
              maxTransactions: limit,
              sleep,
              now: Date.now,
            },
          },
          { onPaid: (count) => spend.add(count), signal: ctx.stop },
        );
      } catch (error) {
        if (error instanceof OutputInTheWay) {
          return `${error.message}. Name another file with out. Nothing was spent.`;
        }
        // The answer cache (CacheInUse) or the output held by another session for a moment: wait a
        // little, then say so. Known by its class, whatever its message says.
        if (error instanceof FileInUse && attempt < 100) {
          await sleep(100);
          continue;
        }
        if (error instanceof BulkError) return `${error.message}. Nothing was spent.`;
        throw error;
      }
    }
  } finally {
    // What the run spent is written now, not in up to 2 s.
    spend.close();
  }
}
