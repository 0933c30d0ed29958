// The answer cache on disk, shared by every session of the server (and by the CLI, given the same
// file with --cache): @enrich/bulk's AnswerStore, the CLI's journal format. A server may live for
// days beside others, so the store is never held open: a lookup opens it read-only (no lock), and a
// new paid answer opens it with its lock just long enough to journal it. When another process holds
// the lock (a file run) for longer than a few seconds, the answer is kept in memory, still answers
// repeats in this process, and is journaled by the next write that gets the lock.
import { AnswerStore, BulkError } from '@enrich/bulk';
import type { Outcome } from '@enrich/core';

export interface CacheOptions {
  readonly path: string;
  readonly maxAgeMs: number;
  readonly scrub: (text: string) => string;
  readonly log: (text: string) => void;
  /** How long to wait for another process's lock before keeping the answer in memory. */
  readonly lockWaitMs?: number;
}

interface Held {
  readonly namespace: string;
  readonly key: string;
  readonly outcome: Outcome;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class AnswerCache {
  private readonly held = new Map<string, Held>();

  constructor(private readonly options: CacheOptions) {}

  get path(): string {
    return this.options.path;
  }

  /** A fresh answer for the request, or undefined. */
  get(namespace: string, key: string): Outcome | undefined {
    const held = this.held.get(`${namespace}\n${key}`);
    if (held) return held.outcome;
    let store: AnswerStore | undefined;
    try {
      store = AnswerStore.open({
        path: this.options.path,
        namespace,
        maxAgeMs: this.options.maxAgeMs,
        readOnly: true,
      });
      return store.get(key);
    } catch (error) {
      this.options.log(
        `The answer cache ${this.options.path} could not be read: ${(error as Error).message}`,
      );
      return undefined;
    } finally {
      store?.close();
    }
  }

  /** Journals a paid answer (durably), or keeps it in memory when that cannot be done now. */
  async put(namespace: string, key: string, outcome: Outcome): Promise<void> {
    this.held.set(`${namespace}\n${key}`, { namespace, key, outcome });
    await this.flush();
  }

  /** Writes the answers held in memory, each under its own namespace. */
  async flush(): Promise<void> {
    for (const [id, held] of [...this.held]) {
      const store = await this.openForWriting(held.namespace);
      if (!store) return;
      try {
        if (await store.put(held.key, held.outcome)) {
          this.held.delete(id);
          continue;
        }
        const saved = store.saveUnsaved();
        if (saved?.where === 'journal' || saved?.where === 'rescue') this.held.delete(id);
        this.options.log(
          `A paid answer could not be written to the answer cache ${this.options.path} (${saved?.reason ?? store.failure?.message}); ${
            saved?.where === 'rescue'
              ? `it was saved in ${saved.rescuePath}`
              : 'it is kept in memory for this session'
          }.`,
        );
      } finally {
        store.close();
      }
    }
  }

  private async openForWriting(namespace: string): Promise<AnswerStore | undefined> {
    const deadline = Date.now() + (this.options.lockWaitMs ?? 5000);
    for (;;) {
      try {
        return AnswerStore.open({
          path: this.options.path,
          namespace,
          maxAgeMs: this.options.maxAgeMs,
          scrub: this.options.scrub,
        });
      } catch (error) {
        if (!(error instanceof BulkError) || Date.now() > deadline) {
          this.options.log(
            `The answer cache ${this.options.path} could not be opened for writing (${(error as Error).message}); the answer is kept in memory for this session and written later.`,
          );
          return undefined;
        }
        await sleep(50);
      }
    }
  }
}
