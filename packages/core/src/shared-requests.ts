// Step 2 of the purchase path (DESIGN "One purchase path"): a request already on its way is shared,
// not sent again. Two callers asking the same question at the same moment (three assistant calls
// in parallel, two chat tools in one turn) would each miss the answer store, since neither answer
// is there yet, and each pay. Keyed by whatever names one purchase: the service's namespace and
// core's request key. In one process only; across processes the shared store's claim does this.

export interface Shared<T> {
  readonly value: T;
  /** True when this caller waited for another caller's purchase instead of making its own. */
  readonly shared: boolean;
}

export class SharedRequests<T> {
  private readonly onTheirWay = new Map<string, Promise<T>>();

  /** Requests on their way now. */
  get size(): number {
    return this.onTheirWay.size;
  }

  /**
   * `buy()`'s value, run once per key at a time: a caller that comes while the same key is on its
   * way waits for that purchase and gets its value (or its error) instead.
   */
  async once(key: string, buy: () => Promise<T>): Promise<Shared<T>> {
    const pending = this.onTheirWay.get(key);
    if (pending) return { value: await pending, shared: true };
    const started = buy();
    this.onTheirWay.set(key, started);
    try {
      return { value: await started, shared: false };
    } finally {
      this.onTheirWay.delete(key);
    }
  }
}
