// A backend's capacity: at most N requests in service at once; a request that arrives when all N
// are busy waits in a FIFO queue. Modelled with the times the N slots become free: a request
// arriving at t takes the slot that frees first, starts at max(t, that time) (and never before the
// request ahead of it: first in, first out), and ends its service time later. Without a capacity
// (Infinity) every request starts when it arrives. Computed from the times it is given, never with
// timers, so it runs as well on a virtual clock; arrival times are expected not to go backwards.
//
// The same bookkeeping gives the peaks, cheaply: starts never go backwards (FIFO), so the requests
// still waiting are the tail of a queue of start times; and the ends of the requests in service
// are a min-heap pruned at each start, so it never holds more than the requests in service.
import { MinHeap } from './min-heap.js';

export interface Admission {
  /** When its service starts (ms, on the clock of `at`): its arrival, or later when it waited. */
  readonly start: number;
  /** When its answer is ready: start plus its service time. */
  readonly end: number;
}

export interface ServiceQueue {
  /** A request that reached the service at `at`, taking `serviceMs`, with `capacity` slots (Infinity: no limit). */
  admit(at: number, serviceMs: number, capacity: number): Admission;
  /** Whether a request arriving at `at` would wait for a slot (every slot busy, or a queue ahead of it). */
  wouldWait(at: number, capacity: number): boolean;
  /** The most requests in service at once (a request counts from its start to its end, itself included). */
  peakInService(): number;
  /** The most requests waiting for a slot at once. */
  peakWaiting(): number;
  reset(): void;
}

export function createServiceQueue(): ServiceQueue {
  // Ends of the requests in service at the latest start (and of the slots' current holders).
  const ends = new MinHeap();
  // Start times of the requests that have not started yet at the latest arrival, oldest first.
  let waiting: number[] = [];
  let head = 0;
  let lastStart = Number.NEGATIVE_INFINITY;
  let peakInService = 0;
  let peakWaiting = 0;

  const prune = (upTo: number) => {
    while (ends.size > 0 && (ends.peek() as number) <= upTo) ends.pop();
  };

  return {
    admit(at, serviceMs, capacity) {
      let start = at;
      if (Number.isFinite(capacity)) {
        // FIFO: no earlier than the request ahead of this one.
        start = Math.max(at, lastStart);
        prune(start);
        // Wait for enough slots to free that one is left for this request.
        const slots = Math.max(1, Math.floor(capacity));
        while (ends.size >= slots) start = Math.max(start, ends.pop() as number);
      }
      prune(start);
      const end = start + serviceMs;
      ends.push(end);
      lastStart = Math.max(lastStart, start);
      peakInService = Math.max(peakInService, ends.size);

      while (head < waiting.length && (waiting[head] as number) <= at) head++;
      if (start > at) waiting.push(start);
      peakWaiting = Math.max(peakWaiting, waiting.length - head);
      if (head > 1024 && head * 2 > waiting.length) {
        waiting = waiting.slice(head);
        head = 0;
      }
      return { start, end };
    },
    wouldWait(at, capacity) {
      if (!Number.isFinite(capacity)) return false;
      // Safe to prune now: arrivals do not go backwards, so no later start comes before `at`.
      prune(at);
      return lastStart > at || ends.size >= Math.max(1, Math.floor(capacity));
    },
    peakInService: () => peakInService,
    peakWaiting: () => peakWaiting,
    reset() {
      ends.clear();
      waiting = [];
      head = 0;
      lastStart = Number.NEGATIVE_INFINITY;
      peakInService = 0;
      peakWaiting = 0;
    },
  };
}
