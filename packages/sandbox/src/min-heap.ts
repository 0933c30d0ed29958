// A binary min-heap of numbers: the earliest of a set of times in O(log n), for the capacity model.

export class MinHeap {
  readonly #items: number[] = [];

  get size(): number {
    return this.#items.length;
  }

  /** The smallest value, or undefined when empty. */
  peek(): number | undefined {
    return this.#items[0];
  }

  push(value: number): void {
    const items = this.#items;
    items.push(value);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = items[parent] as number;
      if (above <= value) break;
      items[i] = above;
      i = parent;
    }
    items[i] = value;
  }

  /** Removes and returns the smallest value, or undefined when empty. */
  pop(): number | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && (items[right] as number) < (items[left] as number) ? right : left;
      const below = items[child] as number;
      if (below >= last) break;
      items[i] = below;
      i = child;
    }
    items[i] = last;
    return top;
  }

  clear(): void {
    this.#items.length = 0;
  }
}
