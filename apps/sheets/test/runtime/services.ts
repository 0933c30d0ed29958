// Fakes of the Apps Script services the add-on may use, each enforcing the documented limits that
// matter to it (shared/PLATFORMS.md): what custom functions and AuthMode.NONE may call, cache and
// property sizes, URL fetch quotas and sizes, the URL allow-list, and time on the virtual clock.
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Sandbox } from '@enrich/sandbox';
import { type Execution, RETRY_LOCK } from './execution.js';

// ---------------------------------------------------------------------------------------------
// Stores that outlive executions (owned by the runtime).

export class PropertyStore {
  readonly values = new Map<string, string>();
  constructor(readonly name: string) {}
  bytes(): number {
    let total = 0;
    for (const [k, v] of this.values) total += Buffer.byteLength(k) + Buffer.byteLength(v);
    return total;
  }
}

export interface CacheEntry {
  value: string;
  expires: number;
}

export class CacheStore {
  readonly entries = new Map<string, CacheEntry>();
  evictions = 0;
  constructor(readonly name: string) {}

  /**
   * Expiry is "only a suggestion": the cache may drop any item before it expires. Drops each item
   * with probability `fraction` (1 drops everything), as a test decides.
   */
  evictEarly(fraction: number, random: () => number): number {
    let dropped = 0;
    for (const key of [...this.entries.keys()]) {
      if (fraction >= 1 || random() < fraction) {
        this.entries.delete(key);
        dropped++;
      }
    }
    this.evictions += dropped;
    return dropped;
  }
}

export interface DailyCounter {
  day: number;
  count: number;
}

export const LIMITS = {
  propertyValueBytes: 9 * 1024,
  propertyStoreBytes: 500 * 1024,
  propertyOpsPerDay: 50_000,
  cacheKeyChars: 250,
  cacheValueBytes: 100 * 1024,
  cacheMaxItems: 1000,
  cacheKeepItems: 900,
  cacheMaxTtlSeconds: 21_600,
  cacheDefaultTtlSeconds: 600,
  urlFetchPerDay: 20_000,
  urlFetchBytes: 50 * 1024 * 1024,
  urlFetchUrlChars: 2 * 1024,
  urlFetchHeaders: 100,
  sleepMaxMs: 300_000,
};

export const SERVICE_COSTS = { properties: 5, cache: 5, lock: 1 };

const DAY_MS = 86_400_000;

function countDaily(
  counter: DailyCounter,
  now: number,
  limit: number,
  exec: Execution,
  service: string,
): void {
  const day = Math.floor(now / DAY_MS);
  if (counter.day !== day) {
    counter.day = day;
    counter.count = 0;
  }
  counter.count++;
  if (counter.count > limit)
    throw exec.realm.error(`Service invoked too many times for one day: ${service}.`);
}

// ---------------------------------------------------------------------------------------------
// PropertiesService

export interface PropertiesHost {
  /** The store behind getUserProperties() in this execution (the owner's in a custom function). */
  userStore(): PropertyStore;
  documentStore(): PropertyStore;
  scriptStore(): PropertyStore;
  opsCounter(): DailyCounter;
}

export function createPropertiesService(exec: Execution, host: PropertiesHost) {
  const realm = exec.realm;
  const properties = (store: PropertyStore) => {
    const touch = () => {
      exec.enter(SERVICE_COSTS.properties);
      countDaily(host.opsCounter(), exec.clock.now(), LIMITS.propertyOpsPerDay, exec, 'properties');
    };
    const writable = (method: string) => {
      // A custom function cannot set properties.
      exec.allow(`Properties.${method}`, { limited: true });
      touch();
    };
    const set = (entries: [string, unknown][]) => {
      const next = new Map(store.values);
      for (const [key, raw] of entries) {
        const value = String(raw);
        if (Buffer.byteLength(value) > LIMITS.propertyValueBytes)
          throw realm.error('Argument too large: value');
        next.set(String(key), value);
      }
      let total = 0;
      for (const [k, v] of next) total += Buffer.byteLength(k) + Buffer.byteLength(v);
      if (total > LIMITS.propertyStoreBytes) {
        throw realm.error(
          'You have exceeded the property storage quota. Please remove some properties and try again.',
        );
      }
      store.values.clear();
      for (const [k, v] of next) store.values.set(k, v);
    };
    const self = {
      getProperty: (key: string) => {
        touch();
        return store.values.get(String(key)) ?? null;
      },
      getProperties: () => {
        touch();
        return realm.importValue(Object.fromEntries(store.values));
      },
      getKeys: () => {
        touch();
        return realm.importValue([...store.values.keys()]);
      },
      setProperty: (key: string, value: unknown) => {
        writable('setProperty');
        set([[key, value]]);
        return self;
      },
      setProperties: (values: Record<string, unknown>, deleteAllOthers?: boolean) => {
        writable('setProperties');
        if (deleteAllOthers) store.values.clear();
        set(Object.entries(values));
        return self;
      },
      deleteProperty: (key: string) => {
        writable('deleteProperty');
        store.values.delete(String(key));
        return self;
      },
      deleteAllProperties: () => {
        writable('deleteAllProperties');
        store.values.clear();
        return self;
      },
    };
    return self;
  };
  const get = (what: string, store: () => PropertyStore) => () => {
    exec.allow(`PropertiesService.${what}`, { custom: true });
    return properties(store());
  };
  return {
    getUserProperties: get('getUserProperties', host.userStore),
    getDocumentProperties: get('getDocumentProperties', host.documentStore),
    getScriptProperties: get('getScriptProperties', host.scriptStore),
  };
}

// ---------------------------------------------------------------------------------------------
// CacheService

export interface CacheHost {
  userCache(): CacheStore;
  documentCache(): CacheStore | null;
  scriptCache(): CacheStore;
}

export function createCacheService(exec: Execution, host: CacheHost) {
  const realm = exec.realm;
  const now = () => exec.clock.now();
  const cache = (store: CacheStore) => {
    const live = (key: string): string | null => {
      const entry = store.entries.get(key);
      if (!entry) return null;
      if (entry.expires <= now()) {
        store.entries.delete(key);
        return null;
      }
      return entry.value;
    };
    const checkKey = (key: unknown) => {
      if (typeof key !== 'string') throw realm.error('Cache keys must be strings');
      if (key.length > LIMITS.cacheKeyChars)
        throw realm.error(`Argument too large: key (${key.length} characters; the limit is 250)`);
    };
    const ttlOf = (ttl: unknown) => {
      const seconds = ttl === undefined ? LIMITS.cacheDefaultTtlSeconds : Number(ttl);
      if (!Number.isInteger(seconds) || seconds < 1 || seconds > LIMITS.cacheMaxTtlSeconds) {
        throw realm.error(`Invalid argument: expirationInSeconds must be 1 to 21600; got ${String(ttl)}`);
      }
      return seconds;
    };
    const put = (entries: [string, unknown][], ttl: unknown) => {
      const seconds = ttlOf(ttl);
      for (const [key, value] of entries) {
        checkKey(key);
        if (typeof value !== 'string') throw realm.error('Cache values must be strings');
        if (Buffer.byteLength(value) > LIMITS.cacheValueBytes) throw realm.error('Argument too large: value');
      }
      for (const [key, value] of entries) {
        store.entries.delete(key);
        store.entries.set(key, { value: value as string, expires: now() + seconds * 1000 });
      }
      // Past 1,000 items the cache keeps the 900 furthest from expiry.
      if (store.entries.size > LIMITS.cacheMaxItems) {
        const kept = [...store.entries.entries()]
          .sort((a, b) => b[1].expires - a[1].expires)
          .slice(0, LIMITS.cacheKeepItems);
        store.evictions += store.entries.size - kept.length;
        store.entries.clear();
        for (const [k, v] of kept) store.entries.set(k, v);
      }
    };
    return {
      get: (key: string) => {
        exec.enter(SERVICE_COSTS.cache);
        checkKey(key);
        return live(key);
      },
      getAll: (keys: string[]) => {
        exec.enter(SERVICE_COSTS.cache);
        const out: Record<string, string> = {};
        for (const key of keys) {
          checkKey(key);
          const value = live(key);
          if (value !== null) out[key] = value;
        }
        return realm.importValue(out);
      },
      put: (key: string, value: unknown, ttl?: number) => {
        exec.enter(SERVICE_COSTS.cache);
        put([[key, value]], ttl);
      },
      putAll: (values: Record<string, unknown>, ttl?: number) => {
        exec.enter(SERVICE_COSTS.cache);
        put(Object.entries(values), ttl);
      },
      remove: (key: string) => {
        exec.enter(SERVICE_COSTS.cache);
        store.entries.delete(key);
      },
      removeAll: (keys: string[]) => {
        exec.enter(SERVICE_COSTS.cache);
        for (const key of keys) store.entries.delete(key);
      },
    };
  };
  const allow = (what: string) => exec.allow(`CacheService.${what}`, { custom: true });
  return {
    getUserCache: () => {
      allow('getUserCache');
      return cache(host.userCache());
    },
    getDocumentCache: () => {
      allow('getDocumentCache');
      const store = host.documentCache();
      return store ? cache(store) : null;
    },
    getScriptCache: () => {
      allow('getScriptCache');
      return cache(host.scriptCache());
    },
  };
}

// ---------------------------------------------------------------------------------------------
// LockService: a lock is free unless another execution holds it. Executions run one at a time,
// except those started together (runtime/concurrent.ts), where a busy tryLock waits for the holder.

export function createLockService(exec: Execution, held: Map<string, Execution>, refused = () => false) {
  const lock = (name: string) => {
    const take = () => {
      if (refused()) return false;
      const owner = held.get(name);
      if (owner && owner !== exec) return false;
      held.set(name, exec);
      exec.locks.add(name);
      return true;
    };
    return {
      tryLock: (ms: number) => {
        exec.enter(SERVICE_COSTS.lock);
        if (take()) {
          exec.lockWaitStart = null;
          return true;
        }
        // Executions running at once: wait (let the holder go on) until the timeout, then give up.
        if (exec.concurrent && !refused()) {
          const now = exec.clock.now();
          exec.lockWaitStart ??= now;
          if (now - exec.lockWaitStart < Number(ms)) throw RETRY_LOCK;
          exec.lockWaitStart = null;
        }
        return false;
      },
      waitLock: (_ms: number) => {
        exec.enter(SERVICE_COSTS.lock);
        if (!take())
          throw exec.realm.error('Lock timeout: another process was holding the lock for too long.');
      },
      hasLock: () => held.get(name) === exec,
      releaseLock: () => {
        if (held.get(name) === exec) held.delete(name);
        exec.locks.delete(name);
      },
    };
  };
  const allow = (what: string) => exec.allow(`LockService.${what}`, { custom: true });
  return {
    getDocumentLock: () => {
      allow('getDocumentLock');
      return lock('document');
    },
    getUserLock: () => {
      allow('getUserLock');
      return lock(`user:${exec.user.email}`);
    },
    getScriptLock: () => {
      allow('getScriptLock');
      return lock('script');
    },
  };
}

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
    host.log.push({
      url: request.url,
      method: request.method,
      headers: { ...request.headers },
      body: request.body,
      status: answer.status,
      responseHeaders: { ...answer.headers },
      at: exec.clock.now(),
      followRedirects: request.followRedirects,
      user: exec.user.email,
      mode: exec.mode,
    });
    if (Buffer.byteLength(answer.body) > LIMITS.urlFetchBytes) fail('Exception: Response too large');
    const latency = answer.delayMs + host.extraLatencyMs;
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

// ---------------------------------------------------------------------------------------------
// Utilities, HtmlService, Session, Logger, console, ScriptApp

export function createUtilities(exec: Execution, random: () => number) {
  const realm = exec.realm;
  const bytesOf = (value: unknown, charset?: string): Buffer => {
    if (typeof value === 'string') return Buffer.from(value, charset === 'US_ASCII' ? 'latin1' : 'utf8');
    if (Array.isArray(value)) return Buffer.from(value.map((b) => (Number(b) + 256) % 256));
    throw realm.error('Invalid argument: value');
  };
  const signed = (buffer: Buffer) => realm.importValue([...buffer].map((b) => (b > 127 ? b - 256 : b)));
  const algorithms: Record<string, string> = {
    MD5: 'md5',
    SHA_1: 'sha1',
    SHA_256: 'sha256',
    SHA_384: 'sha384',
    SHA_512: 'sha512',
  };
  // Blobs: only what the add-on uses (text in and out, gzip). Bytes are signed, as Apps Script's are.
  const BYTES = Symbol('bytes');
  const blob = (bytes: Buffer, contentType: string | null = null) => ({
    [BYTES]: bytes,
    getBytes: () => signed(bytes),
    getDataAsString: () => bytes.toString('utf8'),
    getContentType: () => contentType,
  });
  const bytesOfBlob = (value: unknown): Buffer => {
    const bytes = (value as { [BYTES]?: Buffer } | null)?.[BYTES];
    if (!bytes) throw realm.error('Invalid argument: blob');
    return bytes;
  };
  return {
    newBlob: (data: unknown, contentType?: string) => blob(bytesOf(data), contentType ?? null),
    gzip: (value: unknown) => blob(gzipSync(bytesOfBlob(value)), 'application/x-gzip'),
    ungzip: (value: unknown) => {
      try {
        return blob(gunzipSync(bytesOfBlob(value)));
      } catch {
        throw realm.error('Invalid argument: blob is not gzip data');
      }
    },
    DigestAlgorithm: Object.fromEntries(Object.keys(algorithms).map((k) => [k, k])),
    Charset: { US_ASCII: 'US_ASCII', UTF_8: 'UTF_8' },
    sleep: (ms: number) => {
      if (!(Number(ms) >= 0) || Number(ms) > LIMITS.sleepMaxMs) {
        throw realm.error(`Invalid argument: milliseconds must be 0 to 300000; got ${String(ms)}`);
      }
      exec.enter(Number(ms));
    },
    computeDigest: (algorithm: string, value: unknown, charset?: string) => {
      const name = algorithms[algorithm];
      if (!name) throw realm.error(`Invalid argument: algorithm ${String(algorithm)}`);
      return signed(createHash(name).update(bytesOf(value, charset)).digest());
    },
    base64Encode: (value: unknown, charset?: string) => bytesOf(value, charset).toString('base64'),
    base64EncodeWebSafe: (value: unknown, charset?: string) =>
      bytesOf(value, charset).toString('base64').replace(/\+/g, '-').replace(/\//g, '_'),
    base64Decode: (text: string) => signed(Buffer.from(String(text), 'base64')),
    getUuid: () => {
      const bytes = Buffer.from(Array.from({ length: 16 }, () => Math.floor(random() * 256)));
      const hex = bytes.toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
    },
  };
}

export interface HtmlHost {
  readFile(name: string): string;
}

const HTML_OUTPUT = Symbol('HtmlOutput');

export function createHtmlService(exec: Execution, host: HtmlHost) {
  const output = (initial: string) => {
    let content = initial;
    let title = '';
    const self = {
      [HTML_OUTPUT]: true,
      getContent: () => content,
      setContent: (html: string) => {
        content = String(html);
        return self;
      },
      append: (html: string) => {
        content += String(html);
        return self;
      },
      getTitle: () => title,
      setTitle: (t: string) => {
        title = String(t);
        return self;
      },
      setWidth: () => self,
      setHeight: () => self,
      setSandboxMode: () => self,
      setXFrameOptionsMode: () => self,
      addMetaTag: () => self,
    };
    return self;
  };
  return {
    SandboxMode: { IFRAME: 'IFRAME', NATIVE: 'NATIVE', EMULATED: 'EMULATED' },
    XFrameOptionsMode: { ALLOWALL: 'ALLOWALL', DEFAULT: 'DEFAULT' },
    createHtmlOutput: (html?: string) => output(html === undefined ? '' : String(html)),
    createHtmlOutputFromFile: (name: string) => {
      exec.enter(10);
      return output(host.readFile(name));
    },
    createTemplateFromFile: () => {
      throw exec.realm.error(
        'HtmlService templates are not modelled by this test runtime; the add-on does not use them',
      );
    },
  };
}

export function htmlOf(value: unknown): { title: string; html: string } {
  const output = value as { [HTML_OUTPUT]?: boolean; getContent?: () => string; getTitle?: () => string };
  if (!output?.[HTML_OUTPUT] || !output.getContent) throw new Error('showSidebar takes an HtmlOutput');
  return { title: output.getTitle?.() ?? '', html: output.getContent() };
}

export function createSession(exec: Execution, temporaryKey: string) {
  const allow = (what: string) => exec.allow(`Session.${what}`, {});
  return {
    // A consumer account's e-mail is hidden from add-ons it did not authorise with that scope.
    getActiveUser: () => {
      allow('getActiveUser');
      return { getEmail: () => '' };
    },
    getEffectiveUser: () => {
      allow('getEffectiveUser');
      return { getEmail: () => '' };
    },
    getTemporaryActiveUserKey: () => {
      allow('getTemporaryActiveUserKey');
      return temporaryKey;
    },
    getScriptTimeZone: () => 'Etc/UTC',
  };
}

export function createLogger(log: string[]) {
  const format = (args: unknown[]) =>
    args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
  return {
    Logger: {
      log: (...args: unknown[]) => {
        log.push(format(args));
      },
    },
    console: Object.fromEntries(
      ['log', 'info', 'warn', 'error', 'debug'].map((level) => [
        level,
        (...args: unknown[]) => {
          log.push(`${level}: ${format(args)}`);
        },
      ]),
    ),
  };
}
