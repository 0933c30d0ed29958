// Fakes of the Apps Script services the add-on may use, each enforcing the documented limits that
// matter to it (docs/platforms.md): what custom functions and AuthMode.NONE may call, cache and
// property sizes, URL fetch quotas and sizes, the URL allow-list, and time on the virtual clock.
// This file: the stores, the limits, PropertiesService and CacheService; LockService (lock-service.ts),
// UrlFetchApp (url-fetch.ts) and the smaller services (small-services.ts) have files of their own.
import type { Execution } from './execution.js';

// ---------------------------------------------------------------------------------------------
// Stores that outlive executions (owned by the runtime).

export class PropertyStore {
  readonly values = new Map<string, string>();
  /** Calls that wrote the store (setProperty, setProperties, delete…): what a quota counts. */
  writeCalls = 0;
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
  /**
   * A failure of the service itself, as a test injects it: after `skip` more calls of `method` on
   * this cache, the next one throws `message` and does nothing, once. (Apps Script's services fail
   * now and then with errors such as "Unexpected error while getting the method or property putAll
   * on object CacheService.Cache.", community reports.)
   */
  fault: { method: string; skip: number; message: string } | null = null;
  constructor(readonly name: string) {}

  /** The injected failure of this call of `method`, if it is the one (see `fault`). */
  takeFault(method: string): string | undefined {
    const fault = this.fault;
    if (fault === null || fault.method !== method) return undefined;
    if (fault.skip > 0) {
      fault.skip--;
      return undefined;
    }
    this.fault = null;
    return fault.message;
  }

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

export function countDaily(
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
      store.writeCalls++;
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
    getDocumentProperties: () =>
      exec.noDocument ? null : get('getDocumentProperties', host.documentStore)(),
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
    // Each call takes its time, then may fail as the service does (CacheStore.fault).
    const enter = (method: string) => {
      exec.enter(SERVICE_COSTS.cache);
      exec.calls.push(`cache.${method}`);
      const failure = store.takeFault(method);
      if (failure !== undefined) throw realm.error(failure);
    };
    return {
      get: (key: string) => {
        enter('get');
        checkKey(key);
        return live(key);
      },
      getAll: (keys: string[]) => {
        enter('getAll');
        const out: Record<string, string> = {};
        for (const key of keys) {
          checkKey(key);
          const value = live(key);
          if (value !== null) out[key] = value;
        }
        return realm.importValue(out);
      },
      put: (key: string, value: unknown, ttl?: number) => {
        enter('put');
        put([[key, value]], ttl);
      },
      putAll: (values: Record<string, unknown>, ttl?: number) => {
        enter('putAll');
        put(Object.entries(values), ttl);
      },
      remove: (key: string) => {
        enter('remove');
        store.entries.delete(key);
      },
      removeAll: (keys: string[]) => {
        enter('removeAll');
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
      if (exec.noDocument) return null;
      const store = host.documentCache();
      return store ? cache(store) : null;
    },
    getScriptCache: () => {
      allow('getScriptCache');
      return cache(host.scriptCache());
    },
  };
}
