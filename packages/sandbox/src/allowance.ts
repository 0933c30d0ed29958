// What each key has paid for and how much of its allowance is left. Billing is the sandbox's main
// promise to a test suite (GET /__sandbox/stats says how many transactions the code under test
// would have paid for), so the counting lives apart from the request handling: the rules for when
// a window resets and what Retry-After a spent allowance answers can be read, and changed, without
// the rest of the pipeline. Windows are measured with now(), never timers, so a virtual clock
// drives them.
import type { SandboxKnobs } from './knobs.js';

/** One key's account: what it has been billed in all, and in the current allowance window. */
export interface KeyAccount {
  transactions: number;
  windowStart: number;
  usedInWindow: number;
}

export interface Allowances {
  /** The key's account, its window restarted when the window has passed (created on first use). */
  account(key: string): KeyAccount;
  /** Whether the key's allowance for this window is used up. */
  spent(account: KeyAccount): boolean;
  /** Retry-After, in seconds, for a 429 of a spent allowance. */
  retryAfter(account: KeyAccount): number;
  /** Counts one paid transaction. */
  bill(account: KeyAccount): void;
  /** Transactions paid by one key, or by all keys. */
  transactions(key?: string): number;
  reset(): void;
}

export function createAllowances(knobs: Readonly<SandboxKnobs>, now: () => number): Allowances {
  let perKey = new Map<string, KeyAccount>();
  return {
    account(key) {
      let state = perKey.get(key);
      if (!state) {
        state = { transactions: 0, windowStart: now(), usedInWindow: 0 };
        perKey.set(key, state);
      }
      if (now() - state.windowStart >= knobs.allowanceWindowMs) {
        state.windowStart = now();
        state.usedInWindow = 0;
      }
      return state;
    },
    spent: (state) => state.usedInWindow >= knobs.allowance,
    retryAfter: (state) =>
      Number.isFinite(knobs.allowanceWindowMs)
        ? Math.max(1, Math.ceil((state.windowStart + knobs.allowanceWindowMs - now()) / 1000))
        : knobs.retryAfterSeconds,
    bill(state) {
      state.transactions++;
      state.usedInWindow++;
    },
    transactions(key) {
      if (key === undefined) return [...perKey.values()].reduce((sum, s) => sum + s.transactions, 0);
      return perKey.get(key)?.transactions ?? 0;
    },
    reset() {
      perKey = new Map();
    },
  };
}
