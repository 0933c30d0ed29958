// The shared store pruned on a schedule (issue 38, retention): answers older than the retention are
// deleted from the team's store at start and every `--prune-every` (an hour by default), without
// anyone running `enrich cache prune --store`. Every instance has the timer; @enrich/bulk's
// pruneSharedOnSchedule lets one instance at a time prune (an advisory lock) and the others leave it
// when the store was pruned less than half an interval ago, so the store is pruned about once an
// interval however many instances run. The retention is the service user's setting (its data
// folder, as every client's: 30 days unless `enrich cache retention` set another), read again at
// each prune. The log says how many answers and from which store, never which: no row, no key.
import { pruneSharedOnSchedule, retentionMs } from '@enrich/bulk';
import type { Logger } from './log.js';

export interface PruningOptions {
  readonly storeUrl: string;
  readonly everyMs: number;
  readonly dataDir: string;
  /** The store in words (no password). */
  readonly where: string;
  readonly log: Logger['log'];
}

const DAY_MS = 86_400_000;

export class StorePruning {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: PruningOptions) {}

  /** Prunes now (in the background), then every interval. */
  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.options.everyMs);
    // Not what keeps the server alive: its HTTP server is.
    this.timer.unref();
  }

  /** No more prunes; waits for the one in progress (its transaction commits or rolls back whole). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private tick(): void {
    // One at a time in this instance: a prune longer than the interval is not started twice.
    if (this.running) return;
    this.running = this.pruneOnce().finally(() => {
      this.running = undefined;
    });
  }

  private async pruneOnce(): Promise<void> {
    const { storeUrl, everyMs, dataDir, where, log } = this.options;
    let maxAgeMs: number;
    try {
      maxAgeMs = retentionMs(dataDir);
    } catch (error) {
      log(`old answers were not pruned from ${where}: ${(error as Error).message}`, 'WARNING');
      return;
    }
    try {
      const pruned = await pruneSharedOnSchedule(storeUrl, maxAgeMs, everyMs);
      if (pruned.kind === 'pruned') {
        log(`pruned ${pruned.removed} answers older than ${maxAgeMs / DAY_MS} days from ${where}`);
      }
    } catch (error) {
      log(
        `old answers could not be pruned now (tried again in an interval): ${(error as Error).message}`,
        'WARNING',
      );
    }
  }
}
