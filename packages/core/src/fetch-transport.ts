// A Transport over the platform's fetch, for Node and the VS Code extension host. Not part of the
// universal entry: Apps Script has no fetch.
//
// - Redirects are never followed (`redirect: 'manual'`): following one would send the key and the
//   body to wherever the Location says, even from https to plain http. The 3xx is returned as it is.
// - One deadline covers the whole exchange, headers and body: a body trickling one byte every two
//   seconds cannot hold a call past it (an idle timer, such as undici's bodyTimeout, never fires
//   then). It is one timer per request, cleared as soon as the exchange ends.
// - The body is read up to a size cap (1 MB by default). A body that breaks off (connection lost,
//   deadline passed, caller's signal) or passes the cap is returned with `bodyProblem` and what
//   arrived, not thrown: once the headers are in, a 200 has been paid for, and a thrown network
//   error would be retried, buying the answer again.
// - Before the headers, fetch does not say whether the body went out, so the rejection is judged
//   conservatively (see Transport in http.ts for what each kind means):
//   - the deadline passed once fetch had been called: the connection may have carried the body and
//     the service may be working on it, so it is `unansweredError` (may have been paid, never
//     retried automatically), even if the time went on connecting;
//   - fetch's TypeError whose cause is a failure to connect (refused, DNS, unreachable, a reset or
//     timeout while connecting, TLS): nothing was sent; thrown as it is, a network error, retried;
//   - its cause a connection lost after connecting (a reset or close while reading or writing,
//     undici's own headers timeout): the body may have reached the service: `unansweredError`;
//   - a TypeError with no cause we know (a browser's bare "Failed to fetch": offline, DNS, CORS,
//     refused - nearly always before sending): thrown as it is, a network error, retried.
import {
  DEFAULT_MAX_BODY_BYTES,
  type HttpRequest,
  type HttpResponse,
  type Transport,
  timeoutProblem,
  unansweredError,
} from './http.js';

export interface FetchTransportOptions {
  /** The deadline of one exchange, from sending to the last byte of the body. */
  readonly timeoutMs?: number;
  /** Aborts every exchange in flight (Ctrl-C, a cancelled VS Code progress). */
  readonly signal?: AbortSignal;
  /** The largest body read whole; beyond it the response has bodyProblem 'too-big'. */
  readonly maxBodyBytes?: number;
  /** The fetch to send with (the SDK's `fetch` option); default the platform's own. */
  readonly fetch?: typeof fetch;
}

/** Throws a TypeError when `timeoutMs` is given but is not a usable deadline (see timeoutProblem). */
export function createFetchTransport(options: FetchTransportOptions = {}): Transport {
  if (options.timeoutMs !== undefined) {
    const problem = timeoutProblem('timeoutMs', options.timeoutMs);
    if (problem) throw new TypeError(`createFetchTransport: ${problem}`);
  }
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // Called as a plain function, never as `options.fetch(...)`: a browser's fetch refuses to run
  // with another object as `this` ("Illegal invocation").
  const send = options.fetch ?? fetch;
  return async (request: HttpRequest): Promise<HttpResponse> => {
    const controller = new AbortController();
    const stop = (reason: unknown) => controller.abort(reason);
    const onCallerAbort = () => stop(options.signal?.reason ?? new Error('cancelled'));
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    if (options.signal?.aborted) onCallerAbort();
    else options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const ms = options.timeoutMs;
    if (ms !== undefined) {
      timer = setTimeout(() => {
        timedOut = true;
        stop(new Error(deadlineText(ms)));
      }, ms);
    }
    try {
      let response: Response;
      try {
        response = await send(request.url, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          redirect: 'manual',
          signal: controller.signal,
        });
      } catch (error) {
        if (options.signal?.aborted) throw error;
        if (timedOut) throw unansweredError(deadlineText(ms ?? 0));
        const lost = lostAfterConnecting(error);
        if (lost !== undefined)
          throw unansweredError(`the connection was lost while waiting for the answer: ${lost}`);
        throw error;
      }
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name.toLowerCase()] = value;
      });
      const body = await readCapped(response, maxBodyBytes);
      return body.problem === undefined
        ? { status: response.status, headers, body: body.text }
        : { status: response.status, headers, body: body.text, bodyProblem: body.problem };
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onCallerAbort);
    }
  };
}

interface ReadBody {
  readonly text: string;
  readonly problem?: 'cut' | 'too-big';
}

/** Reads the body up to `maxBytes`; a break or an overflow is reported, with what arrived. */
async function readCapped(response: Response, maxBytes: number): Promise<ReadBody> {
  if (!response.body) return { text: '' };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text: text + decoder.decode() };
      const room = maxBytes - bytes;
      if (value.byteLength > room) {
        text += decoder.decode(value.subarray(0, room));
        // Stop downloading: nothing past the cap is kept.
        await reader.cancel().catch(() => undefined);
        return { text, problem: 'too-big' };
      }
      bytes += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // The connection broke, or the deadline or the caller's signal aborted the read.
    return { text, problem: 'cut' };
  }
}

function deadlineText(ms: number): string {
  return `no complete answer within ${formatMs(ms)}`;
}

// Causes of fetch's TypeError that mean the connection was never made: nothing was sent.
const CONNECT_FAILURES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
]);
// Causes that mean a connection was made and then lost before the answer: the body may have gone.
const LOST_AFTER_CONNECTING = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_HEADERS_TIMEOUT',
]);

/**
 * What lost the connection, when fetch's rejection says that a connection was made and then lost
 * (the request may have reached the service); undefined when nothing was sent or it cannot tell.
 */
export function lostAfterConnecting(error: unknown): string | undefined {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (typeof cause !== 'object' || cause === null) return undefined;
  const { code, syscall, message } = cause as { code?: unknown; syscall?: unknown; message?: unknown };
  if (typeof code !== 'string') return undefined;
  if (syscall === 'connect' || syscall === 'getaddrinfo' || CONNECT_FAILURES.has(code)) return undefined;
  // TLS: the handshake comes before any byte of the request.
  if (/^ERR_(TLS|SSL)_|CERT/.test(code)) return undefined;
  if (!LOST_AFTER_CONNECTING.has(code)) return undefined;
  return typeof message === 'string' && message !== '' ? message : code;
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
