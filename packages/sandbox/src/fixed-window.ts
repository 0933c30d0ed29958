// A gateway's fixed-window limit: at most `windowLimit` requests per key in each window of
// `windowMs`, the "600 a minute" of many API gateways. Windows start on multiples of `windowMs` on
// the sandbox's clock (a gateway's minute starts on the minute, whenever the client came), so a
// client that arrives late in a window gets a full count that ends soon. Past the count, the
// gateway refuses until the window ends, and says when: the rule here is only the counting; the
// 429 and its headers are in operation.ts and rate-headers.ts. Computed from the times it is
// given, never with timers, so it runs as well on a virtual clock.
import type { SandboxKnobs } from './knobs.js';

/** One request through the window: whether it may pass, and what the window has left. */
export interface WindowCount {
  readonly allowed: boolean;
  /** Requests the key may still send in this window, this one counted when allowed. */
  readonly remaining: number;
  readonly limit: number;
  /** When this window ends and the count starts again (ms, on the clock of `at`). */
  readonly resetAt: number;
}

export interface FixedWindows {
  /** Counts one request of `key` at `at` against its window; undefined when there is no window limit. */
  take(key: string, at: number): WindowCount | undefined;
  reset(): void;
}

export function createFixedWindows(
  knobs: Readonly<Pick<SandboxKnobs, 'windowLimit' | 'windowMs'>>,
): FixedWindows {
  let perKey = new Map<string, { start: number; count: number }>();
  return {
    take(key, at) {
      const { windowLimit: limit, windowMs } = knobs;
      if (!Number.isFinite(limit)) return undefined;
      // The window this instant falls in; a new one (or a new length, after a configure) starts afresh.
      const start = Math.floor(at / windowMs) * windowMs;
      let window = perKey.get(key);
      if (window === undefined || window.start !== start) {
        window = { start, count: 0 };
        perKey.set(key, window);
      }
      // A refused request is not counted: the gateway let nothing through for it.
      const allowed = window.count < limit;
      if (allowed) window.count++;
      return { allowed, remaining: limit - window.count, limit, resetAt: start + windowMs };
    },
    reset() {
      perKey = new Map();
    },
  };
}
