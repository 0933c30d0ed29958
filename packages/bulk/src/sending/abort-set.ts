// One 'abort' listener for many waiters. Adding and removing an EventTarget listener per request
// showed in the profile (EventTarget is slow in Node); a list of callbacks behind one listener is not.
//
// The waiters are a doubly linked list, not a Set: a bulk run adds and removes one or two per
// request, and that churn through a Set's hash table cost garbage collections (the CLI's
// bench/README.md has the count).

interface Waiter {
  readonly callback: () => void;
  prev: Waiter | undefined;
  next: Waiter | undefined;
  listed: boolean;
}

export class AbortSet {
  private first: Waiter | undefined;

  constructor(readonly signal: AbortSignal | undefined) {
    signal?.addEventListener(
      'abort',
      () => {
        // Unlisted before any is called: a callback that forgets another waiter changes nothing.
        const callbacks: (() => void)[] = [];
        for (let waiter = this.first; waiter !== undefined; waiter = waiter.next) {
          callbacks.push(waiter.callback);
          waiter.listed = false;
        }
        this.first = undefined;
        for (const callback of callbacks) callback();
      },
      { once: true },
    );
  }

  get aborted(): boolean {
    return this.signal?.aborted === true;
  }

  /** Calls `callback` on abort (at once if already aborted); returns the function that forgets it. */
  add(callback: () => void): () => boolean {
    if (this.aborted) {
      callback();
      return () => false;
    }
    const waiter: Waiter = { callback, prev: undefined, next: this.first, listed: true };
    if (this.first !== undefined) this.first.prev = waiter;
    this.first = waiter;
    return () => this.remove(waiter);
  }

  private remove(waiter: Waiter): boolean {
    if (!waiter.listed) return false;
    waiter.listed = false;
    if (waiter.prev === undefined) this.first = waiter.next;
    else waiter.prev.next = waiter.next;
    if (waiter.next !== undefined) waiter.next.prev = waiter.prev;
    waiter.prev = undefined;
    waiter.next = undefined;
    return true;
  }
}
