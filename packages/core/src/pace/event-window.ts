// The times of recent events (answers, sends, 429s), forgotten once older than a window: how many
// came in the last second, say. Times are appended in order, so the oldest are at the front; a head
// index skips the forgotten ones, and the array is compacted now and then (shift() would copy the
// whole array every time).
export class EventWindow {
  private times: number[] = [];
  private head = 0;

  constructor(private readonly keepMs: number) {}

  /** Mostly in order; an event dated a little earlier than the last (a send time) is put in its place. */
  add(at: number, count = 1): void {
    const { times } = this;
    for (let i = 0; i < count; i++) {
      let place = times.length;
      while (place > this.head && (times[place - 1] as number) > at) place--;
      if (place === times.length) times.push(at);
      else times.splice(place, 0, at);
    }
    this.forgetBefore((times[times.length - 1] as number) - this.keepMs);
  }

  /** Events at or after `since` (within the window kept). */
  countSince(since: number): number {
    const { times } = this;
    let low = this.head;
    let high = times.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((times[mid] as number) < since) low = mid + 1;
      else high = mid;
    }
    return times.length - low;
  }

  private forgetBefore(at: number): void {
    const { times } = this;
    while (this.head < times.length && (times[this.head] as number) < at) this.head++;
    if (this.head > 1024 && this.head * 2 > times.length) {
      this.times = times.slice(this.head);
      this.head = 0;
    }
  }
}
