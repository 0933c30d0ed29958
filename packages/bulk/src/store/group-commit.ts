// Group commit for the answer journal: every line written while one fdatasync runs waits for the
// next one, which covers them all, and syncs are at least `intervalMs` apart.
//
// Why the interval: answers arrive about a millisecond apart and a sync takes a tenth of that, so
// without it nearly every answer had a sync of its own (12,000 for 20,000 answers, each a round trip
// through the thread pool; a quarter of the run's CPU). The wait holds back only when rows count as
// done, never a request: the line is already written.
//
// Why syncSoon(): when no answer is on the way (the last ones of a run, or of a pause), waiting out
// the interval would only make the last rows, and the run's end, later.

import { abortableSleep } from '@enrich/core';

export interface GroupCommitOptions {
  readonly intervalMs: number;
  /** Whether the file is open (a closed file is not synced). */
  readonly isOpen: () => boolean;
  /** Makes every line written so far durable (fdatasync). */
  readonly sync: () => Promise<void>;
  /** Lines up to `seq` are durable. */
  readonly onDurable: (seq: number) => void;
  /** A sync failed: nothing more is durable this run. */
  readonly onFailure: (error: unknown) => void;
  /** Whether a write or a sync has failed (waiters then give up). */
  readonly failed: () => boolean;
}

export class GroupCommit {
  /** fdatasync calls made (each covers every line written before it). */
  syncs = 0;
  private written = 0;
  private durable = 0;
  private syncing: Promise<void> | undefined;
  private lastSyncAt = Number.NEGATIVE_INFINITY;
  /** syncSoon() was called and no line has been written since: the next sync does not wait. */
  private hurry = false;
  /** Ends the wait before the next sync, while there is one. */
  private endWait: AbortController | undefined;

  constructor(private readonly options: GroupCommitOptions) {}

  /** A line was written: its sequence number, to wait for with waitDurable(). */
  wrote(): number {
    // Another answer: more may be on the way (the caller says so again if not).
    this.hurry = false;
    return ++this.written;
  }

  /** Every line written so far is durable (the file was synced outside, on close). */
  allDurable(): void {
    this.durable = this.written;
  }

  /**
   * Syncs without waiting out the interval. Holds until the next line is written: a sync under way
   * when it is called is followed at once by the next, not after the interval.
   */
  syncSoon(): void {
    this.hurry = true;
    this.endWait?.abort();
  }

  /** Resolves true once line `seq` is durable, false when it cannot be (a write or sync failed). */
  async waitDurable(seq: number): Promise<boolean> {
    while (this.durable < seq) {
      if (this.options.failed()) return false;
      this.syncing ??= this.syncBatch().finally(() => {
        this.syncing = undefined;
      });
      await this.syncing;
    }
    return true;
  }

  private async syncBatch(): Promise<void> {
    const wait = this.lastSyncAt + this.options.intervalMs - performance.now();
    if (wait > 0 && !this.hurry) {
      this.endWait = new AbortController();
      await abortableSleep(wait, this.endWait.signal);
      this.endWait = undefined;
    }
    const target = this.written;
    if (!this.options.isOpen()) return;
    try {
      this.syncs++;
      this.lastSyncAt = performance.now();
      await this.options.sync();
    } catch (error) {
      this.options.onFailure(error);
      return;
    }
    this.durable = Math.max(this.durable, target);
    this.options.onDurable(target);
  }
}
