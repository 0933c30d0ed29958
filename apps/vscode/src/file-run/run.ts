// Runs "Enrich File" on the shared bulk engine behind a progress notification with Cancel, then
// opens the result. The engine journals every paid answer before its row counts as done, so a run
// stopped by Cancel, a window reload or a crash is resumed by running it again: the answers already
// bought come from the journal and only the rest is sent (and paid for). Each paid answer is counted
// in the spend ledger as the engine counts it (its onPaid hook). The run spends at most what the
// person confirmed (the engine's budget, sender.maxTransactions), and sends to the bases it was
// reviewed with (the run's, which also name its cache namespace and ledger origin), never to bases
// read again from the settings.
import { join } from 'node:path';
import {
  type BulkProgress,
  type BulkSummary,
  createHttpTransport,
  estimatedRows,
  keepCache,
  PACE_FILE,
  runBulk,
} from '@enrich/bulk';
import { createScrubber, DEFAULT_RETRY_POLICY, outputColumns, paceText } from '@enrich/core';
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
  const scrub = createScrubber([apiKey]);
  const name = run.inPath.split(/[\\/]/).pop() ?? run.inPath;
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `${run.op.title}: ${name}`, cancellable: true },
    async (progress, token) => {
      const stop = new AbortController();
      const onCancel = token.onCancellationRequested(() => stop.abort());
      // Aborted by the engine when requests in flight outlive their grace after Cancel.
      const abandon = new AbortController();
      const spend = ctx.spend.recorder(run.op, run.bases, run.inPath);
      let reported = 0;
      try {
        // The journal named in the user's registry (forget and held find it), compacted once a day.
        await keepCache(ctx.privacy.dataDir, run.cachePath).catch((error: unknown) =>
          ctx.log.error(
            `The answer cache ${run.cachePath} could not be registered: ${(error as Error).message}`,
          ),
        );
        return await runBulk(
          {
            op: run.op,
            inPath: run.inPath,
            outPath: run.outPath,
            force: limits.force === true,
            cachePath: run.cachePath,
            // The pace of the last run per service, kept beside the spend ledger in the extension's
            // storage: the run starts from it (with concurrency auto) and keeps its own.
            pacePath: join(ctx.extension.globalStorageUri.fsPath, PACE_FILE),
            namespace: run.namespace,
            // The retention caps the answers' age; people forgotten are refused (issue 38).
            maxAgeMs: ctx.privacy.maxAge(MAX_AGE_MS),
            refuse: ctx.privacy.refuse(),
            columns: outputColumns(run.op),
            overrides: run.overrides,
            layout: sourceChoice(run),
            // As the CLI without --fields: every field an answer has gets a column.
            allExtras: true,
            abandon,
            scrub,
            display: (path) => path,
            sender: {
              settings: { apiKey, baseUrl: run.bases.baseUrl, baseUrlV3: run.bases.baseUrlV3 },
              maxTransactions: limits.maxTransactions,
              // The engine's transport over Node's http, as the CLI's: the same guarantees as core's
              // fetch transport (no redirects, one deadline, capped bodies) for less CPU per request.
              transport: createHttpTransport({
                timeoutMs: ctx.config.requestTimeoutMs,
                signal: abandon.signal,
              }),
              policy: DEFAULT_RETRY_POLICY,
              // As the CLI: the pace the service allows (auto) unless the settings fix a number.
              concurrency: ctx.config.concurrency,
              maxConcurrency: ctx.config.maxConcurrency,
              maxRate: ctx.config.maxRate,
              sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
              now: Date.now,
            },
          },
          {
            signal: stop.signal,
            onPaid: (count) => spend.add(count),
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
          },
        );
      } finally {
        onCancel.dispose();
        // What is still counted and not written: a stopped run's spend is recorded too.
        spend.close();
      }
    },
  );
}
