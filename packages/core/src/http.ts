// The transport-neutral shape of an HTTP exchange. Core never performs I/O: each client passes in
// a transport (fetch in Node and VS Code, UrlFetchApp in Apps Script, the sandbox's handler in tests).

export interface HttpRequest {
  readonly method: 'POST';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body, already serialised. */
  readonly body: string;
}

export interface HttpResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** What arrived of the body; when `bodyProblem` is set, only part of it (capped). */
  readonly body: string;
  /**
   * The headers arrived but the body did not arrive whole: it broke off (`cut`: connection lost,
   * deadline passed) or passed the transport's size cap (`too-big`). A 200 is then a paid answer
   * that cannot be read, never a reason to send again.
   */
  readonly bodyProblem?: 'cut' | 'too-big';
}

/** Bodies larger than this are not read whole: no answer of this API comes near it. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/**
 * Sends one request. Rejects (throws) only when no HTTP response arrived at all. Never follows a
 * redirect: a 3xx is returned as it is, so that the key and the body go nowhere else.
 *
 * A rejection says which side of the sending it happened on. A plain error: nothing, or not all of
 * the request, reached the service (connection refused, DNS, TLS, a reset while connecting), so
 * sending it again cannot buy an answer twice: it is a `network` error, retried. An error made by
 * `unansweredError` (it has `requestSent: true`): the request went out whole (or may have) and
 * then the deadline passed, or the connection was lost, before any answer: the service may have
 * run and billed it, so it is an `unanswered` error, never retried automatically.
 */
export type Transport = (request: HttpRequest) => Promise<HttpResponse>;

/** A transport's rejection after the request went out whole: see Transport. */
export interface UnansweredError extends Error {
  readonly requestSent: true;
}

/** The error a transport rejects with when the request was sent whole but no answer came. */
export function unansweredError(message: string): UnansweredError {
  return Object.assign(new Error(message), { requestSent: true as const });
}

/**
 * Whether a transport's rejection came after the request was sent whole. Read from a property,
 * not `instanceof`, so that it holds across bundles and realms (Apps Script, a second copy of core).
 */
export function wasSentWhole(cause: unknown): boolean {
  return (
    typeof cause === 'object' && cause !== null && (cause as { requestSent?: unknown }).requestSent === true
  );
}

/** The longest delay a JavaScript timer takes (2^31 - 1 ms, about 24.8 days); longer ones fire at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * Why `timeoutMs` is not a usable deadline, or undefined when it is: a finite number of milliseconds
 * greater than 0 and at most MAX_TIMEOUT_MS. (Node runs a longer timer after 1 ms, and 0, a
 * negative number or NaN would mean no deadline at all.) `label` names the option in the message.
 */
export function timeoutProblem(label: string, timeoutMs: unknown): string | undefined {
  if (
    typeof timeoutMs === 'number' &&
    Number.isFinite(timeoutMs) &&
    timeoutMs > 0 &&
    timeoutMs <= MAX_TIMEOUT_MS
  )
    return undefined;
  const got =
    typeof timeoutMs === 'number'
      ? String(timeoutMs)
      : typeof timeoutMs === 'string'
        ? JSON.stringify(timeoutMs.slice(0, 40))
        : typeof timeoutMs;
  return `${label} must be a finite number of milliseconds greater than 0 and at most ${MAX_TIMEOUT_MS} (about 24.8 days); got ${got}`;
}

/** Lower-cases header names, for transports whose responses keep the server's spelling. */
export function lowerCaseHeaders(
  headers: Readonly<Record<string, string | string[]>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
