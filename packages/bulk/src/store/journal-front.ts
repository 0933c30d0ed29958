// The answer store's front over the journal file (answer-store.ts): the embedded default, for one
// process. Claims are in-process (local-claims.ts): a second caller of a key waits for the first's
// put or release. The monthly cap, per-query budgets and spend rows are counted in memory
// (memory-spend.ts) for the life of the front.
import type { Outcome } from '@enrich/core';
import { AnswerStore, type AnswerStoreOptions } from './answer-store.js';
import { describeFailure } from './journal-file.js';
import { LocalClaims, orAborted } from './local-claims.js';
import { MemorySpend } from './memory-spend.js';
import {
  type ClaimResult,
  type MonthlyCap,
  type SpendRequest,
  type SpendRow,
  type StoreFront,
  type StoreOptions,
  StoreUnavailable,
} from './store-front.js';

export interface JournalFrontOptions
  extends StoreOptions,
    Omit<AnswerStoreOptions, 'readOnly' | keyof StoreOptions> {}

export class JournalFront implements StoreFront {
  readonly where: string;
  readonly namespace: string;
  private readonly claims = new LocalClaims();
  private readonly spent: MemorySpend;
  private closed = false;

  private constructor(
    private readonly store: AnswerStore,
    private readonly options: JournalFrontOptions,
  ) {
    this.where = `the journal ${options.path}`;
    this.namespace = options.namespace;
    this.spent = new MemorySpend(options.namespace, options.maxTransactionsPerMonth, options.now ?? Date.now);
  }

  /** Opens (and locks) the journal; throws as AnswerStore.open does (another process holds it). */
  static open(options: JournalFrontOptions): JournalFront {
    const store = AnswerStore.open({ ...options, readOnly: false });
    try {
      return new JournalFront(store, options);
    } catch (error) {
      store.close();
      throw error;
    }
  }

  /** The journal underneath, for what only it does (its counts, saveUnsaved). */
  get journal(): AnswerStore {
    return this.store;
  }

  async getMany(keys: readonly string[]): Promise<Map<string, Outcome>> {
    this.checkOpen();
    const found = new Map<string, Outcome>();
    for (const key of keys) {
      const outcome = this.store.get(key);
      if (outcome !== undefined) found.set(key, outcome);
    }
    return found;
  }

  async claim(key: string, options?: { readonly signal?: AbortSignal }): Promise<ClaimResult> {
    for (;;) {
      this.checkOpen();
      options?.signal?.throwIfAborted();
      const outcome = this.store.get(key);
      if (outcome !== undefined) return { kind: 'answer', outcome };
      const busy = this.claims.take(key);
      if (busy === undefined) return { kind: 'claimed' };
      await orAborted(busy, options?.signal);
    }
  }

  async put(key: string, outcome: Outcome): Promise<void> {
    this.checkOpen();
    let durable: boolean;
    try {
      durable = await this.store.put(key, outcome);
    } finally {
      // Waiters find the answer: on disk, or held in memory when the write failed.
      this.claims.end(key);
    }
    if (!durable) {
      throw new StoreUnavailable(
        `${this.where} could not be written (${describeFailure(this.store.failure)}); the answer is held in memory and rescued at close`,
        (this.store.failure as NodeJS.ErrnoException | undefined)?.code,
      );
    }
  }

  async release(key: string): Promise<void> {
    this.claims.end(key);
  }

  async reserve(request: SpendRequest): Promise<number> {
    this.checkOpen();
    return this.spent.reserve(request);
  }

  async refund(request: SpendRequest): Promise<void> {
    this.checkOpen();
    this.spent.refund(request);
  }

  async spend(): Promise<SpendRow[]> {
    return this.spent.spend();
  }

  /** The cap this front was opened with: a journal serves one process, nothing else sets it. */
  async monthlyCaps(): Promise<MonthlyCap[]> {
    const { namespace, maxTransactionsPerMonth } = this.options;
    return maxTransactionsPerMonth === undefined ? [] : [{ namespace, maxTransactionsPerMonth }];
  }

  /** Rescues answers a failed write held in memory (journal-file.ts), then closes the journal. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.claims.endAll();
    if (this.store.failure || this.store.unsavedCount > 0) this.store.saveUnsaved();
    this.store.close();
  }

  private checkOpen(): void {
    if (this.closed) throw new StoreUnavailable(`${this.where} is closed`);
  }
}
