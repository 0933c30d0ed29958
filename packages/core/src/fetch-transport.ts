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
import { DEFAULT_MAX_BODY_BYTES, type HttpRequest, type HttpResponse, type Transport } from './http.js';

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

export function createFetchTransport(options: FetchTransportOptions = {}): Transport {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // Called as a plain function, never as `options.fetch(...)`: a browser's fetch refuses to run
  // with another object as `this` ("Illegal invocation").
  const send = options.fetch ?? fetch;
  return async (request: HttpRequest): Promise<HttpResponse> => {
    const controller = new AbortController();
    const stop = (reason: unknown) => controller.abort(reason);
    const onCallerAbort = () => stop(options.signal?.reason ?? new Error('cancelled'));
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (options.signal?.aborted) onCallerAbort();
    else options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (options.timeoutMs !== undefined && options.timeoutMs > 0) {
      const ms = options.timeoutMs;
      timer = setTimeout(() => stop(new Error(`no complete answer within ${formatMs(ms)}`)), ms);
    }
    try {
      const response = await send(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        signal: controller.signal,
      });
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

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
