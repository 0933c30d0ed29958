// The SDK's answer cache (issue 40): a paid answer is kept, so that asking the same question again
// (the same operation, the same input once normalised, the same service) costs nothing. In memory
// by default, for as long as the client lives; any store with `get` and `set` may stand in for it
// (a Map, an LRU cache, a shared database behind a small adapter). Pure: no timers, no I/O.
import type { Outcome } from './response.js';

/** Where the SDK keeps paid answers, keyed by the service's base URL and core's request key. */
export interface AnswerCache {
  get(key: string): Outcome | undefined | Promise<Outcome | undefined>;
  /** Its result is not used (a Map's `set` returns the Map); a promise is awaited. */
  set(key: string, outcome: Outcome): unknown;
}

export interface MemoryCache extends AnswerCache {
  /** Answers kept now. */
  readonly size: number;
  /** Forgets every answer: the next question of each is bought again. */
  clear(): void;
}

/** What the default memory cache keeps at most; past it, the answer kept longest ago goes first. */
export const DEFAULT_CACHE_ANSWERS = 10_000;

export function createMemoryCache(options: { readonly maxAnswers?: number | undefined } = {}): MemoryCache {
  const maxAnswers = options.maxAnswers ?? DEFAULT_CACHE_ANSWERS;
  if (!Number.isInteger(maxAnswers) || maxAnswers < 1)
    throw new TypeError(
      `createMemoryCache: maxAnswers must be a whole number of at least 1; got ${maxAnswers}`,
    );
  const answers = new Map<string, Outcome>();
  return {
    get size() {
      return answers.size;
    },
    get: (key) => answers.get(key),
    set(key, outcome) {
      answers.delete(key);
      answers.set(key, outcome);
      // A Map iterates in insertion order: its first key is the answer kept longest ago.
      for (const oldest of answers.keys()) {
        if (answers.size <= maxAnswers) break;
        answers.delete(oldest);
      }
    },
    clear: () => answers.clear(),
  };
}
