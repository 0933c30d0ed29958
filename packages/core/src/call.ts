// The async driver: validate, build, send with retries, read. Used by Node clients (CLI, VS Code,
// tests). Time and randomness come from outside so that tests can run on a virtual clock.
import type { Operation } from './catalog.js';
import { callError } from './errors.js';
import type { HttpRequest, Transport } from './http.js';
import { type KeyCheckAnswer, type KeyCheckResult, planKeyCheck, readKeyCheck } from './key-check.js';
import { buildRequest } from './request.js';
import { networkError, type Outcome, readResponse } from './response.js';
import { DEFAULT_RETRY_POLICY, decideRetry, type RetryPolicy, type WaitTooLong } from './retry.js';
import type { Settings } from './settings.js';
import { validate } from './validate.js';

export interface CallOptions {
  readonly transport: Transport;
  readonly settings: Settings;
  readonly policy?: RetryPolicy;
  readonly sleep: (ms: number) => Promise<void>;
  /** Epoch milliseconds (Date.now or a fake): dates a Retry-After given as an HTTP date. */
  readonly now: () => number;
  readonly random?: () => number;
  /** Told before each wait, so that a client can show "retrying in 2 s". */
  readonly onRetry?: (info: { attempt: number; delayMs: number; outcome: Outcome }) => void;
  /** Stops further attempts (a cancelled VS Code progress, Ctrl-C in the CLI). */
  readonly isCancelled?: () => boolean;
  /**
   * Told at once, before the report returns, when the service asks for a longer wait than the
   * policy allows (`decideRetry` decides; the report's `waitTooLong` says the same): a client running
   * many calls stops the others here, before another one can leave.
   */
  readonly onWaitTooLong?: (wait: WaitTooLong) => void;
}

export interface CallReport {
  readonly outcome: Outcome;
  /** Attempts that reached the network; 0 when the input was refused locally. */
  readonly attempts: number;
  /** The request as sent, undefined when nothing was sent. Holds the key: redact before showing. */
  readonly request: HttpRequest | undefined;
  /**
   * Set when the service asked for a longer wait (Retry-After) than the policy allows: the outcome
   * is that error, and the client stops the run and says when to resume.
   */
  readonly waitTooLong?: WaitTooLong;
}

export async function callOperation(
  op: Operation,
  rawInput: unknown,
  options: CallOptions,
): Promise<CallReport> {
  const checked = validate(op, rawInput);
  if (!checked.ok) {
    return {
      outcome: { kind: 'error', error: callError('invalid-input', checked.message) },
      attempts: 0,
      request: undefined,
    };
  }
  const built = buildRequest(op, checked.input, options.settings);
  if (!built.ok) {
    return {
      outcome: { kind: 'error', error: callError('config', built.message) },
      attempts: 0,
      request: undefined,
    };
  }
  return sendWithRetry(op, built.request, options);
}

/**
 * Sends an already built request, retrying per the policy. Only errors are retried: a record, a
 * no-match and an unreadable 200 are answers (paid), and a redirect is never followed or resent.
 */
export async function sendWithRetry(
  op: Operation,
  request: HttpRequest,
  options: CallOptions,
): Promise<CallReport> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const random = options.random ?? Math.random;
  const started = options.now();
  for (let attempt = 1; ; attempt++) {
    let outcome: Outcome;
    try {
      const response = await options.transport(request);
      outcome = readResponse(op, response, options.now());
    } catch (cause) {
      outcome = networkError(request.url, cause);
    }
    if (outcome.kind !== 'error') return { outcome, attempts: attempt, request };
    const now = options.now();
    // Decided before asking isCancelled, so that a wait too long is reported even by a call whose
    // run has just stopped (the run keeps the latest time to resume).
    const decision = decideRetry(attempt, now - started, outcome.error, policy, random, now);
    if (!decision.retry) {
      if (!decision.waitTooLong) return { outcome, attempts: attempt, request };
      options.onWaitTooLong?.(decision.waitTooLong);
      return { outcome, attempts: attempt, request, waitTooLong: decision.waitTooLong };
    }
    if (options.isCancelled?.()) return { outcome, attempts: attempt, request };
    options.onRetry?.({ attempt, delayMs: decision.delayMs, outcome });
    await options.sleep(decision.delayMs);
    if (options.isCancelled?.()) return { outcome, attempts: attempt, request };
  }
}

export type KeyCheckReport =
  | { readonly ok: true; readonly results: readonly KeyCheckResult[] }
  | { readonly ok: false; readonly message: string };

/**
 * The free key check: one request per base in use, sent together, never retried (a retry could
 * only repeat the same verdict, and an unexpected 200 may have cost a transaction).
 */
export async function checkKey(settings: Settings, transport: Transport): Promise<KeyCheckReport> {
  const plan = planKeyCheck(settings);
  if (!plan.ok) return plan;
  const results = await Promise.all(
    plan.checks.map(async ({ base, request }) => {
      let answer: KeyCheckAnswer;
      try {
        answer = await transport(request);
      } catch (cause) {
        answer = { networkError: cause };
      }
      return readKeyCheck(base, answer);
    }),
  );
  return { ok: true, results };
}
