// The answer cache on disk as this server uses it, shared by every session of the server (and by the
// CLI, given the same file with --cache): @enrich/bulk's AnswerStore, the CLI's journal format,
// opened briefly. A server may live for days beside others, so the store is never held open: a
// lookup opens it read-only (no lock), and a new paid answer opens it with its lock just long enough
// to journal it. When another process holds the lock (a file run) past a short wait, or the cache's
// folder cannot be used, the answer is set aside at once in a side file that every later lookup
// reads and the next writer moves into the journal: a paid answer is on disk before its result is
// returned, so no exit can lose it. Writes of one process go one at a time, each answer once.
import { AnswerStore, CacheInUse, type CallCache, type Kept, keepAnswer, whileInUse } from '@enrich/bulk';
import type { Outcome } from '@enrich/core';

export interface BriefStoreOptions {
  readonly path: string;
  readonly maxAgeMs: number;
  readonly scrub: (text: string) => string;
  readonly log: (text: string) => void;
  /** How long to wait for another process's lock before setting the answer aside. */
  readonly lockWaitMs?: number;
  /** Where set-aside answers go (the temp directory by default). */
  readonly rescueDir?: string;
  /**
   * Why the person a request key holds may not be kept (forgotten at their request), or undefined.
   * Asked again as a paid answer is written, under the cache's lock: a forget that came while the
   * call was under way has listed the person before it rewrote the cache, so the answer is either
   * in the cache the forget rewrites or refused here.
   */
  readonly forgotten?: (key: string) => string | undefined;
}

export class BriefAnswerStore {
  /** Answers that could be kept nowhere on disk: at least this process does not pay twice. */
  private readonly inMemory = new Map<string, Outcome>();
  private writing: Promise<unknown> = Promise.resolve();
  private stopping = false;

  constructor(private readonly options: BriefStoreOptions) {}

  /** The cache of one service's answers, as a single call asks it (bulk's OneCalls). */
  for(namespace: string): CallCache {
    return {
      get: (key) => this.get(namespace, key),
      keep: (key, outcome) => this.put(namespace, key, outcome),
    };
  }

  get path(): string {
    return this.options.path;
  }

  /** A fresh answer for the request, or undefined. */
  get(namespace: string, key: string): Outcome | undefined {
    const held = this.inMemory.get(`${namespace}\n${key}`);
    if (held) return held;
    let store: AnswerStore | undefined;
    try {
      store = AnswerStore.open({ ...this.storeOptions(namespace), readOnly: true });
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

  /** Keeps a paid answer on disk (durably) before it resolves, and says where. */
  put(namespace: string, key: string, outcome: Outcome): Promise<Kept> {
    const kept = this.writing.then(() => this.write(namespace, key, outcome));
    this.writing = kept.catch(() => undefined);
    return kept;
  }

  /** The server is closing: stop waiting for another process's lock; set answers aside at once. */
  stop(): Promise<unknown> {
    this.stopping = true;
    return this.writing;
  }

  private async write(namespace: string, key: string, outcome: Outcome): Promise<Kept> {
    const opened = await this.openForWriting(namespace);
    const forgotten = this.options.forgotten?.(key);
    if (forgotten !== undefined) {
      if (opened instanceof AnswerStore) opened.close();
      this.options.log('A paid answer was not kept: its person was forgotten while the call was under way.');
      return { where: 'forgotten', reason: forgotten };
    }
    if (opened instanceof AnswerStore) {
      try {
        const kept = await keepAnswer(opened, key, outcome);
        if (kept.where === 'aside') return this.aside(kept.path, kept.reason);
        if (kept.where === 'nowhere') return this.nowhere(namespace, key, outcome, kept.reason);
        return kept;
      } finally {
        opened.close();
      }
    }
    const saved = AnswerStore.setAside(this.storeOptions(namespace), [{ key, outcome }]);
    if (saved.where === 'rescue') return this.aside(saved.rescuePath as string, opened);
    return this.nowhere(namespace, key, outcome, `${opened}; ${saved.reason}`);
  }

  private aside(path: string, reason: string): Kept {
    this.options.log(
      `A paid answer could not go into the answer cache ${this.options.path} now (${reason}); it was set aside in ${path}, which every later lookup reads and the next write moves into the cache.`,
    );
    return { where: 'aside', path, reason };
  }

  private nowhere(namespace: string, key: string, outcome: Outcome, reason: string): Kept {
    this.inMemory.set(`${namespace}\n${key}`, outcome);
    this.options.log(`A paid answer could not be kept on disk (${reason}); only this session remembers it.`);
    return { where: 'nowhere', reason };
  }

  // The store opened with its lock, or why it could not be (after a short wait for another's lock).
  private async openForWriting(namespace: string): Promise<AnswerStore | string> {
    const waitMs = this.options.lockWaitMs ?? 2000;
    try {
      return await whileInUse(
        () => AnswerStore.open(this.storeOptions(namespace)),
        waitMs,
        () => this.stopping,
      );
    } catch (error) {
      // Another process (a file run, the CLI) holds it: known by its class, whatever its words.
      const locked = error instanceof CacheInUse;
      return locked ? `another process holds it: ${(error as Error).message}` : (error as Error).message;
    }
  }

  private storeOptions(namespace: string) {
    return {
      path: this.options.path,
      namespace,
      maxAgeMs: this.options.maxAgeMs,
      scrub: this.options.scrub,
      ...(this.options.rescueDir ? { rescueDir: this.options.rescueDir } : {}),
    };
  }
}
