// The CLI's side of a bulk run: the engine (@enrich/bulk) does the work; this turns the terminal's
// progress reporter into the engine's progress callback and a problem that stops the run before
// anything is sent into the command's usage error (exit 2).
import {
  BulkError,
  type BulkOptions,
  type BulkProgress,
  type BulkSummary,
  OutputInTheWay,
  runBulk as runEngine,
} from '@enrich/bulk';
import { CommandError, EXIT } from './exit-codes.js';
import type { ProgressReporter } from './progress.js';

export { type BulkSummary, GRACE_MS } from '@enrich/bulk';

export interface CliBulkOptions extends BulkOptions {
  readonly progress?: ProgressReporter | undefined;
  readonly signal?: AbortSignal;
  /** Told of each paid transaction (the spend ledger's recorder). */
  readonly onPaid?: (count: number) => void;
}

export async function runBulk(options: CliBulkOptions): Promise<BulkSummary> {
  const { progress, signal, onPaid, ...engine } = options;
  let latest: BulkProgress | undefined;
  const onProgress = (p: BulkProgress) => {
    // The reporter reads the latest figures on its own timer; it starts with the first ones.
    if (!latest) progress?.start(p.totalBytes, () => latest ?? p);
    latest = p;
  };
  try {
    return await runEngine(engine, {
      ...(signal ? { signal } : {}),
      ...(progress ? { onProgress } : {}),
      ...(onPaid ? { onPaid } : {}),
    });
  } catch (error) {
    throw usageError(error);
  } finally {
    progress?.stop();
  }
}

export function usageError(error: unknown): unknown {
  if (error instanceof OutputInTheWay) {
    return new CommandError(
      `${error.message} Add --force to replace it, or name another file with --out.`,
      EXIT.usage,
    );
  }
  return error instanceof BulkError ? new CommandError(error.message, EXIT.usage) : error;
}
