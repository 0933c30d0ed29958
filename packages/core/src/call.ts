// The async driver: validate, build, send with retries, read. Used by Node clients (CLI, VS Code,
// tests). Time and randomness come from outside so that tests can run on a virtual clock.
import type { Operation } from './catalog.js';
import { callError } from './errors.js';
import type { HttpRequest, Transport } from './http.js';
import { buildRequest } from './request.js';
import { networkError, type Outcome, readResponse } from './response.js';
import { DEFAULT_RETRY_POLICY, decideRetry, type RetryPolicy } from './retry.js';
import type { Settings } from './settings.js';
import { validate } from './validate.js';

export interface CallOptions {
  readonly transport: Transport;
  readonly settings: Settings;
  readonly policy?: RetryPolicy;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
  readonly random?: () => number;
  /** Told before each wait, so that a client can show "retrying in 2 s". */
  readonly onRetry?: (info: { attempt: number; delayMs: number; outcome: Outcome }) => void;
  /** Stops further attempts (a cancelled VS Code progress, Ctrl-C in the CLI). */
  readonly isCancelled?: () => boolean;
}

export interface CallReport {
  readonly outcome: Outcome;
  /** Attempts that reached the network; 0 when the input was refused locally. */
  readonly attempts: number;
  /** The request as sent, undefined when nothing was sent. Holds the key: redact before showing. */
  readonly request: HttpRequest | undefined;
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

/** Sends an already built request, retrying per the policy. */
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
      outcome = readResponse(op, await options.transport(request));
    } catch (cause) {
      outcome = networkError(request.url, cause);
    }
    if (outcome.kind !== 'error' || options.isCancelled?.()) return { outcome, attempts: attempt, request };
    const decision = decideRetry(attempt, options.now() - started, outcome.error, policy, random);
    if (!decision.retry) return { outcome, attempts: attempt, request };
    options.onRetry?.({ attempt, delayMs: decision.delayMs, outcome });
    await options.sleep(decision.delayMs);
    if (options.isCancelled?.()) return { outcome, attempts: attempt, request };
  }
}
