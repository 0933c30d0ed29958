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
 */
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
