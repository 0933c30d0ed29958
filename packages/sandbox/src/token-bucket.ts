// A gateway's per-key token bucket: `rate` tokens a second flow into each key's bucket, which holds
// at most `burst` (at least 1); every request takes one, and a request that finds none is refused
// (429) before it reaches the service. A bucket starts full. Everything is computed from the times
// it is given, never with timers, so it runs as well on a virtual clock.

export interface BucketLimits {
  /** Tokens per second (fractional allowed); Infinity for no bucket at all. */
  readonly rate: number;
  /** The most tokens a bucket holds: how many requests may pass at once after a pause. */
  readonly burst: number;
}

export interface TokenBuckets {
  /** Takes one token from the key's bucket at time `at` (ms); false when the bucket is empty. */
  take(key: string, at: number): boolean;
  /**
   * New limits from `at` on: each bucket is first refilled at the old rate up to `at`, then its
   * tokens are kept, capped at the new burst.
   */
  change(limits: BucketLimits, at: number): void;
  /** Every bucket full again. */
  reset(): void;
}

/** The burst when none is given: one second's worth of the rate, and at least 1. */
export function defaultBurst(rate: number): number {
  return Math.max(1, rate);
}

interface Bucket {
  tokens: number;
  last: number;
}

// Refills are sums of fractions: a hair under 1 after a whole token's time still counts as one.
const EPSILON = 1e-9;

export function createTokenBuckets(initial: BucketLimits): TokenBuckets {
  let limits = initial;
  const buckets = new Map<string, Bucket>();
  const capacity = () => Math.max(1, limits.burst);

  const refill = (bucket: Bucket, at: number) => {
    const elapsed = Math.max(0, at - bucket.last);
    bucket.tokens = Math.min(capacity(), bucket.tokens + (elapsed * limits.rate) / 1000);
    bucket.last = Math.max(bucket.last, at);
  };

  return {
    take(key, at) {
      if (limits.rate === Number.POSITIVE_INFINITY) return true;
      let bucket = buckets.get(key);
      if (bucket) refill(bucket, at);
      else {
        bucket = { tokens: capacity(), last: at };
        buckets.set(key, bucket);
      }
      if (bucket.tokens < 1 - EPSILON) return false;
      bucket.tokens = Math.max(0, bucket.tokens - 1);
      return true;
    },
    change(next, at) {
      for (const bucket of buckets.values()) refill(bucket, at);
      limits = next;
      if (limits.rate === Number.POSITIVE_INFINITY) buckets.clear();
      for (const bucket of buckets.values()) bucket.tokens = Math.min(capacity(), bucket.tokens);
    },
    reset() {
      buckets.clear();
    },
  };
}
