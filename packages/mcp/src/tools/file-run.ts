// A quoted file's run through the shared bulk engine (runBulk), capped at the quote's figure: the
// CLI's run, resumable, deduplicated, paced from the last run's pace, its output written whole or
// not at all; every paid answer recorded in the ledger with the input's base name.
import { BulkError, OutputInTheWay, runBulk, whileInUse } from '@enrich/bulk';
import { STOP_GRACE_MS } from '../config.js';
import type { ToolContext } from './context.js';
import { sharedStoreFor } from './file-plan.js';
import type { FileRequest } from './file-request.js';

/** How long a run waits for the answer cache or the output another session holds a moment. */
const IN_USE_WAIT_MS = 10_000;

/** The run's summary, or why it did not run (nothing was spent). */
export async function runFile(request: FileRequest, limit: number, ctx: ToolContext) {
  const { connection, config, scrub } = ctx;
  if (!connection.settings) return 'No API key.';
  const { apiKey } = connection.settings;
  const shared = await sharedStoreFor(request.op, ctx);
  if (typeof shared === 'string') return shared;
  try {
    // The answer cache (CacheInUse) or the output held by another session for a moment: waited
    // for (bulk's whileInUse), then said. Known by its class, whatever its message says.
    return await whileInUse(
      async () =>
        // The engine's defaults for the rest (bulk's run-wiring.ts): the pace the service allows,
        // core's retry policy, Node's transport with a 30 s deadline, every column and field.
        runBulk({
          op: request.op,
          inPath: request.inPath,
          outPath: request.outPath,
          cachePath: config.cachePath,
          // No answer older than the user's retention is used (issue 38).
          maxAgeMs: ctx.maxAgeMs,
          // Where the requests go: also the cache's namespace and the ledger's origin.
          bases: connection.bases,
          apiKey,
          // Starts from the pace of the last run against the service, and keeps this one's.
          pacePath: config.pacePath,
          overrides: request.map,
          scrub,
          sharedStore: shared,
          // Asked at each try: a person forgotten while the run waited is refused too.
          refuse: await ctx.privacy?.refuse(),
          maxTransactions: limit,
          // Every paid answer recorded with the input's base name; written at the end, not in 2 s.
          ledger: ctx.ledger.client,
          signal: ctx.stop,
          graceMs: STOP_GRACE_MS,
        }),
      IN_USE_WAIT_MS,
      () => ctx.stop.aborted,
    );
  } catch (error) {
    if (error instanceof OutputInTheWay) {
      return `${error.message}. Name another file with out. Nothing was spent.`;
    }
    if (error instanceof BulkError) return `${error.message}. Nothing was spent.`;
    throw error;
  }
}
