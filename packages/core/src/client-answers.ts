// Steps 1 and 2 of the purchase path (DESIGN "One purchase path") for the SDK: a question already
// answered is answered from the cache, free; one already on its way is waited for rather than
// bought a second time (a Promise.all over a list with duplicates). Only paid answers are kept
// (isPaid): an error costs nothing, and the next call asks again.
import { isPaid } from './billing.js';
import type { AnswerCache } from './memory-cache.js';
import type { Outcome } from './response.js';

export interface Answer {
  readonly outcome: Outcome;
  /** True when this call paid nothing itself: the answer came from the cache or another call's purchase. */
  readonly cached: boolean;
}

interface Purchase {
  readonly outcome: Promise<Outcome>;
  readonly signal: AbortSignal | undefined;
}

export type AnswerDesk = (key: string, buy: () => Promise<Outcome>, signal?: AbortSignal) => Promise<Answer>;

export function createAnswerDesk(cache: AnswerCache): AnswerDesk {
  const onTheirWay = new Map<string, Purchase>();
  return async (key, buy, signal) => {
    for (;;) {
      const kept = await cache.get(key);
      if (kept) return { outcome: kept, cached: true };
      const pending = onTheirWay.get(key);
      if (pending) {
        const outcome = await untilAborted(pending.outcome, signal);
        if (isPaid(outcome)) return { outcome, cached: true };
        // The other caller stopped its own call (its signal): that is no answer for this one, which
        // asks again. Any other failure is the answer this call would have had too.
        if (pending.signal?.aborted) continue;
        return { outcome, cached: false };
      }
      const purchase: Purchase = { outcome: buy(), signal };
      onTheirWay.set(key, purchase);
      try {
        const outcome = await purchase.outcome;
        if (isPaid(outcome)) await keep(cache, key, outcome);
        return { outcome, cached: false };
      } finally {
        onTheirWay.delete(key);
      }
    }
  };
}

async function keep(cache: AnswerCache, key: string, outcome: Outcome): Promise<void> {
  try {
    await cache.set(key, outcome);
  } catch {
    // A cache of the caller's that cannot keep it must not cost the caller the answer it paid for:
    // the call still gives it; only the next call misses it.
  }
}

/** The promise's value, or the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
