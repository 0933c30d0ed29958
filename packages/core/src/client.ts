// The SDK: `createClient({ apiKey })` gives one method per operation (`client.phoneLookup({ Phone })`)
// over fetch, for Node 20+ and browsers. Each call validates and normalises locally (sending nothing
// when the input is invalid), then sends with core's retry policy, and resolves to a record, no
// match or an error; it never throws for a failed call. Not part of the universal entry: it uses
// fetch and timers, which Apps Script lacks.

import { abortableSleep } from './abortable-sleep.js';
import { callOperation } from './call.js';
import { OPERATIONS, type Operation } from './catalog.js';
import { createAnswerDesk } from './client-answers.js';
import type { CallResult, EnrichClient, MethodOptions } from './client-types.js';
import { environmentVariable } from './environment.js';
import { callError } from './errors.js';
import { createFetchTransport } from './fetch-transport.js';
import { timeoutProblem } from './http.js';
import { flagFromText, numberFromText } from './leaf-text.js';
import { type AnswerCache, createMemoryCache } from './memory-cache.js';
import type { LeafField, OutputShape } from './outputs.js';
import { API_KEY_ENV, BASE_URL_ENV, BASE_URL_V3_ENV } from './request.js';
import { requestKey } from './request-key.js';
import type { LeafValue, Outcome, OutputRecord } from './response.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
import {
  baseUrlOf,
  checkBaseUrl,
  DEFAULT_BASE_URL,
  DEFAULT_BASE_URL_V3,
  halfLocalBases,
  type Settings,
} from './settings.js';
import { validate } from './validate.js';

// Every optional option takes `undefined` as "not given", so that `baseUrl: process.env.X` compiles
// under exactOptionalPropertyTypes (issue 40).
export interface ClientOptions {
  /** Sent in the x-api-key header; never put in an error message. Default: ENRICH_API_KEY. */
  readonly apiKey?: string | undefined;
  /**
   * Base of the v2 operations; default ENRICH_BASE_URL, else `DEFAULT_BASE_URL`. HTTPS, or http://
   * on loopback only. For the sandbox, give both bases its URL.
   */
  readonly baseUrl?: string | undefined;
  /** Base of the v3 operations; default ENRICH_BASE_URL_V3, else `DEFAULT_BASE_URL_V3`. */
  readonly baseUrlV3?: string | undefined;
  /** The fetch to send with; default the platform's own. */
  readonly fetch?: typeof fetch | undefined;
  /**
   * Give up on one attempt after this long; default 30 s. A finite number of milliseconds greater
   * than 0 and at most 2^31 - 1 (what a timer takes); anything else is a TypeError at once. When the
   * deadline passes after the request was sent, the call's error is `unanswered` ("may have been
   * paid") and it is not sent again: the service may have billed it.
   */
  readonly timeoutMs?: number | undefined;
  /** Changes to core's retry policy (429, 5xx and network failures, with backoff and jitter). */
  readonly retry?: { readonly [Name in keyof RetryPolicy]?: RetryPolicy[Name] | undefined } | undefined;
  /**
   * Where paid answers are kept, so that the same question is never bought twice: default a memory
   * cache for the client's life (`createMemoryCache()`, at most 10,000 answers); any `{ get, set }`
   * store instead (a `Map` will do); `false` to buy every call.
   */
  readonly cache?: AnswerCache | false | undefined;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * A client of the nine operations. Options left out are read from the environment where there is
 * one (ENRICH_API_KEY, ENRICH_BASE_URL, ENRICH_BASE_URL_V3), else the defaults. Throws a TypeError
 * at once for what code must fix (no key, a base URL that is not allowed, a timeout that is no
 * deadline); every failure of a call is in its result instead.
 */
export function createClient(options: ClientOptions = {}): EnrichClient {
  const settings = clientSettings(options);
  const policy = retryPolicy(options.retry);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const badTimeout = timeoutProblem('timeoutMs', timeoutMs);
  if (badTimeout) throw new TypeError(`createClient: ${badTimeout}`);
  const desk = options.cache === false ? undefined : createAnswerDesk(options.cache ?? createMemoryCache());

  const buy = (op: Operation, input: unknown, signal: AbortSignal | undefined): Promise<Outcome> => {
    const transport = createFetchTransport({
      timeoutMs,
      ...(signal ? { signal } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    return callOperation(op, input, {
      transport,
      settings,
      policy,
      sleep: (ms) => abortableSleep(ms, signal),
      now: Date.now,
      isCancelled: () => signal?.aborted === true,
    }).then((report) => report.outcome);
  };

  const call = async (op: Operation, input: unknown, callOptions: MethodOptions = {}) => {
    const { signal } = callOptions;
    signal?.throwIfAborted();
    const checked = validate(op, input);
    // An invalid input is refused by callOperation before anything is sent; only a valid one has a
    // request key to keep its answer under.
    const answer =
      desk && checked.ok
        ? await desk(
            `${baseUrlOf(op, settings)} ${requestKey(op, checked.input)}`,
            () => buy(op, checked.input, signal),
            signal,
          )
        : { outcome: await buy(op, input, signal), cached: false };
    // An aborted call rejects with the signal's reason, as fetch does, whatever the last attempt gave
    // (a paid answer is kept in the cache all the same).
    signal?.throwIfAborted();
    const result = resultOf(op, answer.outcome);
    return answer.cached ? { ...result, cached: true } : result;
  };

  const client: Record<string, (input: unknown, callOptions?: MethodOptions) => Promise<unknown>> = {};
  for (const op of OPERATIONS)
    client[methodName(op.title)] = (input, callOptions) => call(op, input, callOptions);
  return client as unknown as EnrichClient;
}

/** The key and both bases: each option, else its environment variable, else the default; checked. */
function clientSettings(options: ClientOptions): Settings {
  const apiKey = options.apiKey ?? environmentVariable(API_KEY_ENV);
  if (typeof apiKey !== 'string' || apiKey.trim() === '')
    throw new TypeError(`createClient: apiKey is required (pass { apiKey }, or set ${API_KEY_ENV})`);
  const given = {
    baseUrl: options.baseUrl ?? environmentVariable(BASE_URL_ENV),
    baseUrlV3: options.baseUrlV3 ?? environmentVariable(BASE_URL_V3_ENV),
  };
  const half = halfLocalBases(given);
  if (half) throw new TypeError(`createClient: ${half}`);
  const settings: Settings = {
    apiKey,
    baseUrl: given.baseUrl ?? DEFAULT_BASE_URL,
    baseUrlV3: given.baseUrlV3 ?? DEFAULT_BASE_URL_V3,
  };
  for (const [label, url] of [
    ['baseUrl', settings.baseUrl],
    ['baseUrlV3', settings.baseUrlV3],
  ] as const) {
    const checked = checkBaseUrl(label, url);
    if (!checked.ok) throw new TypeError(`createClient: ${checked.message}`);
  }
  return settings;
}

/** Core's retry policy with the caller's changes; a change given as undefined changes nothing. */
function retryPolicy(changes: ClientOptions['retry']): RetryPolicy {
  const policy: Record<string, unknown> = { ...DEFAULT_RETRY_POLICY };
  for (const [name, value] of Object.entries(changes ?? {})) if (value !== undefined) policy[name] = value;
  return policy as unknown as RetryPolicy;
}

/** `Phone Lookup` → `phoneLookup`, `TCPA Verify` → `tcpaVerify` (the type MethodName says the same). */
export function methodName(title: string): string {
  const [first = '', ...rest] = title.split(' ');
  return first.toLowerCase() + rest.map((w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()).join('');
}

/**
 * Maps core's outcome to the SDK's three kinds. A record and no match pass through; every other
 * kind (an error, or an answer whose body could not be read) is an error to the caller.
 */
export function resultOf(op: Operation, outcome: Outcome): CallResult<unknown> {
  if (outcome.kind === 'record') {
    // Whatever else the reader kept beside the record (RecordDetails) is passed on as it is.
    const { kind: _kind, status: _status, record, ...details } = outcome;
    return { kind: 'record', record: typedRecord(op.output, record), ...details };
  }
  if (outcome.kind === 'no-match') return { kind: 'no-match' };
  if ('error' in outcome) return { kind: 'error', error: outcome.error };
  const other = outcome as { kind: string; status?: number; reason?: string };
  return {
    kind: 'error',
    error: callError(
      'bad-response',
      `The service answered with something unexpected (${other.kind}${other.reason ? `: ${other.reason}` : ''}).`,
      other.status === undefined ? {} : { status: other.status },
    ),
  };
}

type Leaf = string | number | boolean | null;

/**
 * The record with exactly the catalog's fields and types, whatever arrived: a group that is not an
 * object gives empty leaves, text gives text, and a number or boolean that is not one gives null.
 */
export function typedRecord(shape: OutputShape, record: OutputRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(shape)) {
    const value = record[name];
    if (field.type === 'object') {
      const group = value !== null && typeof value === 'object' ? value : {};
      const leaves: Record<string, Leaf> = {};
      for (const [leaf, spec] of Object.entries(field.fields)) leaves[leaf] = typedLeaf(spec, group[leaf]);
      out[name] = leaves;
    } else {
      out[name] = typedLeaf(field, value as LeafValue | undefined);
    }
  }
  return out;
}

function typedLeaf(spec: LeafField, value: LeafValue | undefined): Leaf {
  switch (spec.type) {
    case 'number':
      if (typeof value === 'number') return value;
      return typeof value === 'string' ? (numberFromText(value) ?? null) : null;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      return typeof value === 'string' ? (flagFromText(value) ?? null) : null;
    case 'string':
      if (value === null || value === undefined) return spec.nullable ? null : '';
      return typeof value === 'string' ? value : String(value);
  }
}
