// Progress of a run, pushed to the client on a timer (never per row: a row costs microseconds, and
// a callback per row would cost more than the row). The file's size is known and its row count is
// not: clients estimate the total from rows per byte read so far (see estimatedRows).
import type { PaceReading } from '@enrich/core';

export interface BulkProgress {
  /** Rows read, and rows written to the output. */
  readonly rows: number;
  readonly written: number;
  /** Bytes of the input read so far, and the input's size. */
  readonly bytes: number;
  readonly totalBytes: number;
  /** Transactions spent so far. */
  readonly transactions: number;
  /** 429 answers so far. */
  readonly throttled: number;
  /** The pace now: in flight, the rate, answers per second, and why it last changed. */
  readonly pace: PaceReading;
}

/** What a run's options say about progress (bulk-options.ts). */
interface ProgressHooks {
  readonly onProgress?: ((progress: BulkProgress) => void) | undefined;
  readonly progressEveryMs?: number | undefined;
}

export function startProgress(
  hooks: ProgressHooks,
  totalBytes: number,
  read: () => Omit<BulkProgress, 'totalBytes'>,
): { stop(): void } {
  const { onProgress } = hooks;
  if (!onProgress) return { stop: () => undefined };
  const report = () => onProgress({ ...read(), totalBytes });
  report();
  const timer = setInterval(report, hooks.progressEveryMs ?? 200);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      report();
    },
  };
}

/** Rows the file holds, as far as can be told from what has been read. */
export function estimatedRows(p: Pick<BulkProgress, 'rows' | 'written' | 'bytes' | 'totalBytes'>): number {
  if (p.bytes <= 0 || p.rows === 0) return Math.max(p.written, 1);
  if (p.bytes >= p.totalBytes) return Math.max(p.rows, 1);
  return Math.max(p.rows, Math.round((p.rows * p.totalBytes) / p.bytes));
}
