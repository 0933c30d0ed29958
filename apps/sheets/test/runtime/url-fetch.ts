// The fake UrlFetchApp (services.ts holds the limits the fakes share).
import type { Sandbox } from '@enrich/sandbox';
import type { Execution } from './execution.js';
import { countDaily, type DailyCounter, LIMITS } from './services.js';

// ---------------------------------------------------------------------------------------------
// UrlFetchApp → the sandbox's in-process handler, with simulated latency on the virtual clock.

export interface RecordedRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly status: number;
  /** The response's headers (lower-case names), as the sandbox answered. */
  readonly responseHeaders: Readonly<Record<string, string>>;
  /** When the request was sent, on the virtual clock. */
  readonly at: number;
  /** How long its answer took to come back (the service's time plus the network's). */
  readonly latencyMs: number;
  /** The followRedirects parameter as given (Apps Script follows redirects unless it is false). */
  readonly followRedirects: boolean;
  readonly user: string;
  readonly mode: string;
}

export interface FetchHost {
  readonly sandbox: Sandbox;
  readonly allowList: readonly string[];
  /** Added to the sandbox's own delay for every request. */
  readonly extraLatencyMs: number;
  readonly log: RecordedRequest[];
  counter(): DailyCounter;
}

interface Prepared {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  mute: boolean;
  followRedirects: boolean;
}

const titleCase = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_, dash: string, ch: string) => dash + ch.toUpperCase());

export function createUrlFetchApp(exec: Execution, host: FetchHost) {
  const realm = exec.realm;
  const fail = (message: string): never => {
    throw realm.error(message);
  };

  const prepare = (url: unknown, params: Record<string, unknown> = {}): Prepared => {
    if (typeof url !== 'string') fail('Invalid argument: url');
    const text = url as string;
    if (text.length > LIMITS.urlFetchUrlChars) fail(`URL too long: ${text.slice(0, 40)}...`);
    if (!/^https?:\/\/[^/]+\//.test(`${text}/`)) fail(`Invalid argument: ${text}`);
    if (host.allowList.length > 0 && !host.allowList.some((entry) => allowedBy(entry, text))) {
      fail(`Exception: The URL ${text.split('?')[0]} is not allowed by the urlFetchWhitelist of this script`);
    }
    const method = String(params.method ?? 'get').toUpperCase();
    const headers: Record<string, string> = {};
    let body = '';
    let contentType: string | undefined =
      params.contentType === undefined ? undefined : String(params.contentType);
    const payload = params.payload;
    if (payload !== undefined && payload !== null) {
      if (typeof payload === 'string') body = payload;
      else if (typeof payload === 'object' && !Array.isArray(payload)) {
        // An object payload is form-encoded, as Apps Script does: almost certainly a bug for a JSON API.
        body = Object.entries(payload as Record<string, unknown>)
          .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
          .join('&');
        contentType ??= 'application/x-www-form-urlencoded';
      } else fail('Invalid argument: payload');
      contentType ??= 'application/x-www-form-urlencoded';
    }
    if (contentType !== undefined) headers['Content-Type'] = contentType;
    const given = (params.headers ?? {}) as Record<string, unknown>;
    for (const [name, value] of Object.entries(given)) headers[name] = String(value);
    if (Object.keys(headers).length > LIMITS.urlFetchHeaders) fail('Too many headers');
    if (Buffer.byteLength(body) > LIMITS.urlFetchBytes) fail('Exception: Request payload too large');
    return {
      url: text,
      method,
      headers,
      body,
      mute: params.muteHttpExceptions === true,
      followRedirects: params.followRedirects !== false,
    };
  };

  const send = (request: Prepared) => {
    countDaily(host.counter(), exec.clock.now(), LIMITS.urlFetchPerDay, exec, 'urlfetch');
    const match = /^https?:\/\/[^/]+(\/[^#]*)?$/.exec(request.url);
    const path = match?.[1] ?? '/';
    const handled = host.sandbox.handle({
      method: request.method,
      path,
      headers: request.headers,
      body: request.body,
    });
    // A body that breaks off half-way (the sandbox's cut-body): what UrlFetchApp then does is not
    // documented. Modelled as the part that arrived, which the add-on must take as paid and
    // unreadable (the service counted it); a throw would be read as a network failure instead.
    const answer =
      handled.delivery === 'cut'
        ? { ...handled, body: handled.body.slice(0, Math.floor(handled.body.length / 2)) }
        : handled;
    const latency = answer.delayMs + host.extraLatencyMs;
    host.log.push({
      url: request.url,
      method: request.method,
      headers: { ...request.headers },
      body: request.body,
      status: answer.status,
      responseHeaders: { ...answer.headers },
      at: exec.clock.now(),
      latencyMs: latency,
      followRedirects: request.followRedirects,
      user: exec.user.email,
      mode: exec.mode,
    });
    if (Buffer.byteLength(answer.body) > LIMITS.urlFetchBytes) fail('Exception: Response too large');
    const response = () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(answer.headers)) headers[titleCase(name)] = value;
      return {
        getResponseCode: () => answer.status,
        getContentText: () => answer.body,
        getContent: () =>
          realm.importValue([...Buffer.from(answer.body)].map((b) => (b > 127 ? b - 256 : b))),
        getHeaders: () => realm.importValue(headers),
        getAllHeaders: () => realm.importValue(headers),
      };
    };
    const check = () => {
      if (!request.mute && answer.status >= 400) {
        const host = /^https?:\/\/[^/]+/.exec(request.url)?.[0] ?? request.url;
        fail(
          `Exception: Request failed for ${host} returned code ${answer.status}. Truncated server response: ${answer.body.slice(0, 100)} (use muteHttpExceptions option to examine full response)`,
        );
      }
    };
    return { latency, response, check };
  };

  // UrlFetchApp needs authorisation: not in a simple trigger (LIMITED).
  const allow = (what: string) => exec.allow(`UrlFetchApp.${what}`, { custom: true, limited: false });
  return {
    fetch: (url: string, params?: Record<string, unknown>) => {
      allow('fetch');
      exec.enter(0);
      const sent = send(prepare(url, params));
      exec.enter(sent.latency);
      sent.check();
      return sent.response();
    },
    /** Requests of one call run concurrently: the call takes as long as its slowest request. */
    fetchAll: (requests: unknown) => {
      allow('fetchAll');
      exec.enter(0);
      if (!Array.isArray(requests)) fail('Invalid argument: requests');
      const prepared = (requests as Record<string, unknown>[]).map((r) => {
        if (r === null || typeof r !== 'object')
          return fail('Invalid argument: each request must be an object');
        return prepare(r.url, r);
      });
      const sent = prepared.map(send);
      exec.enter(Math.max(0, ...sent.map((s) => s.latency)));
      for (const s of sent) s.check();
      return realm.importValue(sent.map((s) => s.response()));
    },
  };
}

/** urlFetchWhitelist semantics: an https:// prefix; "https://*.example.com/" for any subdomain. */
export function allowedBy(entry: string, url: string): boolean {
  const wild = /^https:\/\/\*\.(.*)$/.exec(entry);
  if (!wild) return url.startsWith(entry);
  const rest = /^https:\/\/[^/]+?\.(.*)$/.exec(url);
  return rest !== null && (rest[1] ?? '').startsWith(wild[1] ?? '');
}
