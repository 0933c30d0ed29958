// Reads an HTTP response into the outcome of a call: a record (200), no match (204), a paid but
// unreadable answer (200), or an error.
//
// A 200 is a purchase, so nothing in it is thrown away. Documented fields are matched by their exact
// name, else without regard to case; a value of an unexpected type is kept as text; fields the API
// description does not list are kept in `extra` under dotted names. Everything that differs from the
// description is listed in `mismatches`, so clients can say so. Missing or null values read as
// empty strings, except where the description allows null (Phone Lookup's AptType).
import type { Operation } from './catalog.js';
import { type CallError, callError } from './errors.js';
import { DEFAULT_MAX_BODY_BYTES, type HttpResponse, wasSentWhole } from './http.js';
import {
  describeValue,
  isObject,
  type LeafValue,
  type Mismatch,
  type OutputRecord,
  readRecord,
} from './record-reader.js';
import { parseRetryAfter } from './retry.js';
import { statusInfo } from './vocabulary/status-codes.js';

export type { LeafValue, Mismatch, OutputRecord } from './record-reader.js';

export type Outcome =
  | {
      readonly kind: 'record';
      readonly status: 200;
      /** The documented fields, read tolerantly. */
      readonly record: OutputRecord;
      /** Fields the description does not list, flattened with dotted names (`DID`, `Name.Nick`). */
      readonly extra: Readonly<Record<string, LeafValue>>;
      readonly mismatches: readonly Mismatch[];
      /** The body as it arrived (at most the transport's size cap), so it can be read again later. */
      readonly raw: string;
    }
  | { readonly kind: 'no-match'; readonly status: 204 }
  | {
      /**
       * A paid answer whose body was cut, too big, not JSON or not a JSON object. Never sent again
       * automatically: asking again buys it again.
       */
      readonly kind: 'unreadable';
      readonly status: 200;
      /** What arrived, capped at RAW_MAX_CHARS. */
      readonly raw: string;
      readonly reason: string;
    }
  | { readonly kind: 'error'; readonly error: CallError };

/** How much of an unreadable body is kept: enough to see what the service sent. */
export const RAW_MAX_CHARS = 65_536;

/**
 * Reads one response. `nowMs` (epoch ms) lets a Retry-After given as an HTTP date be understood;
 * without it only Retry-After in seconds is.
 */
export function readResponse(op: Operation, response: HttpResponse, nowMs?: number): Outcome {
  const { status } = response;
  if (status === 204) return { kind: 'no-match', status: 204 };
  if (status >= 300 && status < 400) return { kind: 'error', error: redirectError(status, response.headers) };
  if (status !== 200) {
    const info = statusInfo(status);
    const extra: Partial<CallError> = { status };
    // Retry-After matters only where asking again may help (429 and 5xx).
    const retryAfterMs = info.retryable ? parseRetryAfter(response.headers['retry-after'], nowMs) : undefined;
    if (retryAfterMs !== undefined) Object.assign(extra, { retryAfterMs });
    return { kind: 'error', error: callError(info.code ?? 'unexpected-status', info.message, extra) };
  }
  return readBody(op, response);
}

function readBody(op: Operation, response: HttpResponse): Outcome {
  const { body } = response;
  if (response.bodyProblem === 'cut') return unreadable(body, 'the body broke off before it was complete');
  if (response.bodyProblem === 'too-big' || body.length > DEFAULT_MAX_BODY_BYTES)
    return unreadable(body, 'the body is larger than the size limit');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return unreadable(body, 'the body is not JSON');
  }
  if (!isObject(parsed))
    return unreadable(body, `the body is JSON but ${describeValue(parsed)}, not an object`);
  try {
    return { kind: 'record', status: 200, ...readRecord(op.output, parsed), raw: body };
  } catch {
    // Only a body nested deeply enough to exhaust the stack gets here.
    return unreadable(body, 'the body is nested too deeply to read');
  }
}

function unreadable(body: string, reason: string): Outcome {
  return { kind: 'unreadable', status: 200, raw: capRaw(body), reason };
}

/** The first `max` characters of a body, without splitting a surrogate pair. */
export function capRaw(text: string, max: number = RAW_MAX_CHARS): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/**
 * No response arrived. Before the request was sent whole (the transport's plain error): a `network`
 * error, retried. After it (the transport's `unansweredError`: the deadline passed or the
 * connection was lost while waiting): `unanswered`, which the service may have billed, never
 * retried automatically.
 */
export function networkError(url: string, cause: unknown): Outcome {
  const host = /^https?:\/\/([^/]+)/.exec(url)?.[1] ?? url;
  const detail = cause instanceof Error ? cause.message : String(cause);
  if (wasSentWhole(cause)) {
    return {
      kind: 'error',
      error: callError(
        'unanswered',
        `May have been paid: the request was sent to ${host} but no answer came (${detail}). The service may have billed it, so it was not sent again.`,
      ),
    };
  }
  return {
    kind: 'error',
    error: callError('network', `Could not reach the service at ${host}: ${detail}`),
  };
}

// scheme://[userinfo@]host[:port] at the start of an absolute Location. Linear: each class stops
// at a character the next one starts with.
const ABSOLUTE_LOCATION = /^[A-Za-z][A-Za-z0-9+.-]{0,20}:\/\/([^/?#\s]{0,300})/;

function redirectError(status: number, headers: Readonly<Record<string, string>>): CallError {
  const location = headers.location;
  let where: string;
  if (location === undefined || location.trim() === '') where = 'without saying where';
  else {
    const authority = ABSOLUTE_LOCATION.exec(location.trim())?.[1];
    // Drop any user:password@ so that credentials in a Location are never repeated.
    where =
      authority === undefined
        ? 'to another path on the same host'
        : `to ${authority.slice(authority.lastIndexOf('@') + 1)}`;
  }
  return callError(
    'redirect',
    `The service answered ${status} (a redirect) ${where}. Redirects are not followed, so nothing was sent there; check the base URL.`,
    { status },
  );
}
