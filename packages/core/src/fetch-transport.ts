// A Transport over the platform's fetch, for Node and the VS Code extension host. Not part of the
// universal entry: Apps Script has no fetch.
import { type HttpRequest, type HttpResponse, lowerCaseHeaders, type Transport } from './http.js';

export interface FetchTransportOptions {
  /** Abort a request that has not answered after this long. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** The fetch to send with (the SDK's `fetch` option); default the platform's own. */
  readonly fetch?: typeof fetch;
}

export function createFetchTransport(options: FetchTransportOptions = {}): Transport {
  // Called as a plain function, never as `options.fetch(...)`: a browser's fetch refuses to run
  // with another object as `this` ("Illegal invocation").
  const send = options.fetch ?? fetch;
  return async (request: HttpRequest): Promise<HttpResponse> => {
    const signals = [
      options.signal,
      options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined,
    ].filter((s): s is AbortSignal => s !== undefined);
    const response = await send(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: signals.length > 0 ? AbortSignal.any(signals) : null,
    });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return { status: response.status, headers: lowerCaseHeaders(headers), body: await response.text() };
  };
}
