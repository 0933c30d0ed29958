// A bulk run with the terminal's progress reporter: the engine (@enrich/bulk) does the work; this
// turns the reporter into the engine's progress callback.
import { type BulkOptions, type BulkProgress, type BulkSummary, runBulk } from '@enrich/bulk';
import type { ProgressReporter } from './progress.js';

export async function runWithProgress(
  options: BulkOptions,
  progress: ProgressReporter | undefined,
): Promise<BulkSummary> {
  let latest: BulkProgress | undefined;
  const onProgress = (p: BulkProgress) => {
    // The reporter reads the latest figures on its own timer; it starts with the first ones.
    if (!latest) progress?.start(p.totalBytes, () => latest ?? p);
    latest = p;
  };
  try {
    return await runBulk(progress ? { ...options, onProgress } : options);
  } finally {
    progress?.stop();
  }
}
