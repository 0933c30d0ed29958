// The requests of a run that wait for the sender, oldest first, as plain entries. Thousands may
// wait at once (run-bulk.ts reads far ahead), and handing each to the sender at once gave each a
// promise chain of a few kilobytes that outlived several garbage collections: most of the heap
// early in a big run. Here they are handed over only while `hasRoom()` says the sender can take
// more.
export class RequestQueue<T> {
  // An array used as a queue from `head`, compacted now and then (as window.ts does).
  private items: (T | undefined)[] = [];
  private head = 0;

  constructor(
    private readonly hasRoom: () => boolean,
    private readonly start: (item: T) => void,
  ) {}

  push(item: T): void {
    this.items.push(item);
    this.startWhatFits();
  }

  /** Hands over waiting requests while there is room; call it whenever room may have been made. */
  startWhatFits(): void {
    while (this.head < this.items.length && this.hasRoom()) {
      const item = this.items[this.head] as T;
      this.items[this.head++] = undefined;
      if (this.head > 4096 && this.head * 2 > this.items.length) {
        this.items.splice(0, this.head);
        this.head = 0;
      }
      this.start(item);
    }
  }
}
