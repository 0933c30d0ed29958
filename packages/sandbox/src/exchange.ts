// A request and its answer as plain data, apart from any HTTP library. The sandbox's behaviour is a
// synchronous function from one to the other so that the Node server and the synchronous
// harnesses (the Apps Script test runtime) drive exactly the same code; every part of it (the
// operations, the admin paths) builds its answers through the helpers here, so the body shape and
// header lookup are decided once. The API does not show its error bodies' shape; the sandbox
// answers {"status": <code>, "error": "<message>"} as JSON.

export interface SandboxRequest {
  readonly method: string;
  /** The path, optionally with a query string. */
  readonly path: string;
  /** Header names in any case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
}

export interface SandboxResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** How long the server would wait before answering: latency, plus 2 s for the slow inputs. */
  readonly delayMs: number;
  /** How the server sends the body: whole (absent), half then the connection destroyed, or a byte at a time. */
  readonly delivery?: 'cut' | 'trickle';
}

/** An answer sent `delayMs` after the request, its body as JSON (none when `body` is undefined). */
export function answer(
  status: number,
  body: unknown,
  extraHeaders: Record<string, string>,
  delayMs: number,
): SandboxResponse {
  const headers: Record<string, string> = { ...extraHeaders };
  let text = '';
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    text = JSON.stringify(body);
  }
  return { status, headers, body: text, delayMs };
}

/** An error answer: {"status": <code>, "error": "<message>"}. */
export function errorAnswer(
  status: number,
  message: string,
  extraHeaders: Record<string, string>,
  delayMs: number,
): SandboxResponse {
  return answer(status, { status, error: message }, extraHeaders, delayMs);
}

/** The answer with `extra` headers added (the same answer when there are none). */
export function withHeaders(
  response: SandboxResponse,
  extra: Readonly<Record<string, string>>,
): SandboxResponse {
  if (Object.keys(extra).length === 0) return response;
  return { ...response, headers: { ...response.headers, ...extra } };
}

/** A request header by its lower-case name, whatever the case it was sent in. */
export function header(request: SandboxRequest, name: string): string | undefined {
  for (const [key, value] of Object.entries(request.headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
