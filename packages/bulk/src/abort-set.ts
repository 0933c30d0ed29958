// One 'abort' listener for many waiters. Adding and removing an EventTarget listener per request
// showed in the profile (EventTarget is slow in Node); a Set of callbacks behind one listener is not.
export class AbortSet {
  private readonly waiting = new Set<() => void>();

  constructor(readonly signal: AbortSignal | undefined) {
    signal?.addEventListener(
      'abort',
      () => {
        for (const callback of [...this.waiting]) callback();
        this.waiting.clear();
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
    this.waiting.add(callback);
    return () => this.waiting.delete(callback);
  }
}
