// What a Sender is given (its options: the operation, the transport, the pace's caps, the budget,
// the hooks) and what it gives back for each request (SendResult). Apart from sender.ts because the
// run's options (bulk-options.ts) and the run's requests speak of these types, not of the engine;
// sender.ts re-exports them.

import type {
  CallError,
  Operation,
  Outcome,
  RememberedPace,
  RetryPolicy,
  Settings,
  Transport,
} from '@enrich/core';

export type SendResult =
  | {
      readonly sent: true;
      readonly outcome: Outcome;
      readonly paid: boolean;
      /** A paid answer: whether keep() made it durable. */
      readonly kept: boolean;
    }
  | { readonly sent: false; readonly reason: string; readonly mayHaveBeenPaid?: boolean };

export interface SenderOptions {
  readonly op: Operation;
  readonly settings: Settings;
  readonly transport: Transport;
  readonly policy: RetryPolicy;
  /** Requests in flight: a fixed number, or 'auto' for the pace the service allows. */
  readonly concurrency: number | 'auto';
  /** With 'auto': the most in flight (core's default, 64, if undefined). */
  readonly maxConcurrency?: number | undefined;
  /**
   * With 'auto': the pace the last run against this service found, to start from instead of
   * climbing from core's INITIAL_CONCURRENCY (run-bulk.ts reads it from BulkOptions.pacePath).
   */
  readonly startFrom?: RememberedPace | undefined;
  /** Requests (attempts) per second never exceeded, or undefined for no such cap. */
  readonly maxRate?: number | undefined;
  readonly maxTransactions?: number | undefined;
  /**
   * A retry's wait (a test's clock, say); by default core's abortableSleep alone, whose timer the
   * run's stop clears, so that no wait holds the process after Ctrl-C.
   */
  readonly sleep?: ((ms: number) => Promise<void>) | undefined;
  readonly now: () => number;
  readonly random?: () => number;
  /** A 429 without Retry-After pauses the run this long. */
  readonly defaultPauseMs?: number;
  /** Consecutive requests that end in a server or network error before the run stops sending. */
  readonly failureLimit?: number;
  readonly onRetry?: (info: { delayMs: number; error: CallError }) => void;
  /** Aborted when requests in flight are to be abandoned (also given to the transport, to close them). */
  readonly abandonSignal?: AbortSignal;
  /**
   * Asked before each request: a reason not to send it (the journal can no longer keep answers),
   * or undefined. Asked here, not only after the failing answer's row, so that no request starts in
   * between.
   */
  readonly mayNotSend?: () => string | undefined;
  /** Told of each paid answer as it is counted in `spent` (the spend ledger's recorder). */
  readonly onPaid?: ((count: number) => void) | undefined;
}
