// Runs "Enrich File" on the shared bulk engine behind a progress notification with Cancel, then
// opens the result. The engine journals every paid answer before its row counts as done, so a run
// stopped by Cancel, a window reload or a crash is resumed by running it again: the answers already
// bought come from the journal and only the rest is sent (and paid for). Each paid answer is counted
// in the spend ledger as the engine counts it (its `ledger`). The run spends at most what the person
// confirmed (the engine's budget, maxTransactions), and sends to the bases it was reviewed with (the
// run's, from which the engine also names its cache namespace and ledger origin), never to bases
// read again from the settings.
import { join } from 'node:path';
import {
  type BulkProgress,
  type BulkSummary,
  estimatedRows,
  keepCache,
  PACE_FILE,
  runBulk,
} from '@enrich/bulk';
import { createScrubber, paceText } from '@enrich/core';
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import { type CsvRun, MAX_AGE_MS, sourceChoice } from './files';

export interface RunLimits {
  /** The transactions the person confirmed: the engine stops sending when they are spent. */
  readonly maxTransactions: number;
  /** Replace an output file that is not one of ours (the user said so). */
  readonly force?: boolean;
}

export async function enrichFile(
  ctx: Ctx,
  run: CsvRun,
  apiKey: string,
  limits: RunLimits,
): Promise<BulkSummary | undefined> {
  const name = run.inPath.split(/[\\/]/).pop() ?? run.inPath;
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `${run.op.title}: ${name}`, cancellable: true },
    async (progress, token) => {
      const stop = new AbortController();
      const onCancel = token.onCancellationRequested(() => stop.abort());
      let reported = 0;
      try {
        // The journal named in the user's registry (forget and held find it), compacted once a day.
        await keepCache(ctx.privacy.dataDir, run.cachePath).catch((error: unknown) =>
          ctx.log.error(
            `The answer cache ${run.cachePath} could not be registered: ${(error as Error).message}`,
          ),
        );
        // The engine's defaults for the rest: every field an answer has gets a column (as the CLI
        // without --fields), core's retry policy, Node's http transport, the real clock.
        return await runBulk({
          op: run.op,
          inPath: run.inPath,
          outPath: run.outPath,
          force: limits.force === true,
          cachePath: run.cachePath,
          // The bases reviewed: the requests, the cache's namespace and the ledger's origin.
          bases: run.bases,
          apiKey,
          scrub: createScrubber([apiKey]),
          // The pace of the last run per service, kept beside the spend ledger in the extension's
          // storage: the run starts from it (with concurrency auto) and keeps its own.
          pacePath: join(ctx.extension.globalStorageUri.fsPath, PACE_FILE),
          // The retention caps the answers' age; people forgotten are refused (issue 38).
          maxAgeMs: ctx.privacy.maxAge(MAX_AGE_MS),
          refuse: ctx.privacy.refuse(),
          overrides: run.overrides,
          layout: sourceChoice(run),
          maxTransactions: limits.maxTransactions,
          timeoutMs: ctx.config.requestTimeoutMs,
          // As the CLI: the pace the service allows (auto) unless the settings fix a number.
          concurrency: ctx.config.concurrency,
          maxConcurrency: ctx.config.maxConcurrency,
          maxRate: ctx.config.maxRate,
          // Each paid answer counted in the spend ledger as the engine counts it.
          ledger: ctx.spend.client,
          signal: stop.signal,
          progressEveryMs: 250,
          onProgress: (p: BulkProgress) => {
            const total = Math.max(estimatedRows(p), p.written, 1);
            const percent = Math.min(100, Math.floor((p.written / total) * 100));
            progress.report({
              message: `${p.written} of about ${total} rows, ${p.transactions} transaction${p.transactions === 1 ? '' : 's'} spent; pace ${paceText(p.pace)}`,
              increment: percent - reported,
            });
            reported = percent;
          },
        });
      } finally {
        onCancel.dispose();
      }
    },
  );
}
