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
  readonly body: string;
}

/** Sends one request. Rejects (throws) only when no HTTP response arrived at all. */
export type Transport = (request: HttpRequest) => Promise<HttpResponse>;

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
