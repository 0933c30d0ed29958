// The rows of a run between reading and writing, oldest first. A row goes in when it is read, with
// its result if it is already known (invalid, or answered from the cache), else with the pending
// request it waits for; rows leave from the front, in file order, as soon as the front one has its
// result. The output is therefore written in the order of the input whatever order answers come
// in. It holds what the caller gives it; `isFull` tells the caller (row-queue.ts) to put further
// rows elsewhere (on disk), so that memory is bounded by the capacity.

/** What a row waits for: the one request of its distinct input, shared by every row that asks it. */
export interface Pending<R> {
  result: R | undefined;
}

export class OrderedWindow<T, R> {
  // Two parallel arrays used as a queue from `head`: no object per row.
  private items: (T | undefined)[] = [];
  private results: (R | Pending<R> | undefined)[] = [];
  private head = 0;

  constructor(readonly capacity: number) {}

  /** Rows held (read, not yet written). */
  get size(): number {
    return this.items.length - this.head;
  }

  get isFull(): boolean {
    return this.size >= this.capacity;
  }

  /** Adds a row at the back: with its result, or with the pending request it waits for. */
  push(item: T, result: R | Pending<R>): void {
    this.items.push(item);
    this.results.push(result);
  }

  /**
   * Hands every row at the front whose result is known to `write`, in order, and stops at the
   * first that still waits. `isPending` tells a pending request from a result.
   */
  drain(
    write: (item: T, result: R) => void,
    isPending: (value: R | Pending<R>) => value is Pending<R>,
  ): void {
    const { items, results } = this;
    while (this.head < items.length) {
      const value = results[this.head] as R | Pending<R>;
      const result = isPending(value) ? value.result : value;
      if (result === undefined) break;
      write(items[this.head] as T, result);
      items[this.head] = undefined;
      results[this.head] = undefined;
      this.head++;
    }
    // Compact now and then, so that the arrays do not grow with the file.
    if (this.head > 4096 && this.head * 2 > items.length) {
      items.splice(0, this.head);
      results.splice(0, this.head);
      this.head = 0;
    }
  }
}
