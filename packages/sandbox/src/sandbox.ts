// The API's behaviour as one synchronous function, request in, response out: the server wraps it
// in HTTP, and synchronous harnesses (the Apps Script test runtime) call it directly.
//
// Checks, in this order, each answered with the API's status codes where it has one:
//   admin path → unknown path 404 → not POST 405 → x-api-key missing or unknown 401 →
//   the key's token bucket empty 429 (a gateway's rate limit, token-bucket.ts) →
//   Content-Type not JSON 415 → body not a JSON object 400 → unknown field, non-string value,
//   broken bound or requirement rule 400 → allowance used up 429 → the service: reserved input or
//   injected fault → 200 record.
// The sandbox is strict where a lenient server would hide client bugs: values must already be
// normalised ("(555) 010-2030" is a 400, as the API says "numeric only"), and fields an operation
// does not take are a 400.
// Error bodies: the API does not show their shape; the sandbox answers
// {"status": <code>, "error": "<message>"} as JSON.
// Billing: 200, 204 and 440 count as transactions (core's PAID_STATUSES).
// Misbehaviour on request (misbehave.ts): the modes in front of the service answer before the key
// is checked; the others change a 200 record, which is billed as any 200.
// Load (all from now(), never with timers, so a virtual clock drives it): answers that reach the
// service (200, 204, 440, 500) take a service time drawn from the latency distribution
// (latency.ts) and may wait for one of `capacity` slots (capacity.ts); delayMs is that wait plus
// the service time. The token bucket's 429 answers at once (a gateway in front of the service).
// Every other answer (401, 400, the allowance's 429, ...) takes the fixed `latencyMs`, as before,
// and occupies no slot.
// Admin paths (/__sandbox/*): a credential first (ADMIN_HEADER with the admin token, or x-api-key
// with one of the keys; 401 without, 403 with a wrong one), then the method (405), then for the
// POSTs Content-Type: application/json (415). So a web page cannot reach them with a simple form or
// fetch (a custom header or a JSON body makes the browser ask first, and the sandbox never allows
// it). Admin answers take no latency, no slot, no token, and are not counted in the stats.
import { type CleanInput, matchField, OPERATIONS, type Operation, validate } from '@enrich/core';
import { createServiceQueue } from './capacity.js';
import { DEMO_KEY } from './demo-key.js';
import { drawLatency } from './latency.js';
import {
  frontMode,
  MISBEHAVE_HEADER,
  type MisbehaveMode,
  misbehavingAnswer,
  parseMisbehave,
  retryAfterDate,
} from './misbehave.js';
import { type Random, seededRandom } from './random.js';
import { reservedOutcome, SLOW_MS } from './reserved.js';
import { syntheticRecord } from './synthetic.js';
import { createTokenBuckets, defaultBurst } from './token-bucket.js';

export const ADMIN_PREFIX = '/__sandbox/';
/** The header that carries the admin token to the admin paths (x-api-key with a key also does). */
export const ADMIN_HEADER = 'x-sandbox-admin';

export interface SandboxKnobs {
  /**
   * Added to every answer by the server, and reported as `delayMs` by handle(). With a
   * `latencyP99Ms` above it, the median of the service time of the answers that reach the service.
   */
  latencyMs: number;
  /**
   * The 99th percentile of the service time: above `latencyMs`, each service time is drawn from a
   * log-normal with that median and this p99 (a seeded sequence); otherwise the latency is fixed.
   */
  latencyP99Ms: number;
  /** Requests per second per key let through by a token bucket in front of the service; Infinity for none. */
  rate: number;
  /** The most a key's bucket holds (requests at once after a pause); defaults to one second's worth, at least 1. */
  burst: number;
  /** Requests in service at once; more wait in a FIFO queue. Infinity for no limit. */
  capacity: number;
  /** Share of otherwise good requests answered 500, drawn from a seeded sequence. */
  faultRate: number;
  /** Paid transactions per key per window; Infinity for none. */
  allowance: number;
  /** The allowance resets this long after a window's first request; Infinity for never. */
  allowanceWindowMs: number;
  /** Retry-After on a 429 when the allowance never resets (and on the reserved 429 input). */
  retryAfterSeconds: number;
  /** Misbehaviours for every request (misbehave.ts); a request's header adds its own. */
  misbehave: readonly MisbehaveMode[];
}

export interface SandboxOptions extends Partial<SandboxKnobs> {
  readonly keys?: readonly string[];
  readonly seed?: string;
  readonly now?: () => number;
  /** Where `redirect` points (the server's decoy); the discard port when there is no server. */
  readonly redirectOrigin?: string;
  /** The admin paths' token (header ADMIN_HEADER); random when not given. */
  readonly adminToken?: string;
}

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

export interface Stats {
  readonly transactions: number;
  readonly requests: number;
  /** Answers to requests (not to the admin paths) by status code. */
  readonly byStatus: Readonly<Record<string, number>>;
  /** 429 answers, from any cause (the rate, the allowance, the reserved input, a misbehaviour). */
  readonly throttled: number;
  /**
   * Answers other than 429 per second, from the first request's arrival to the latest answer's end
   * (arrival + delayMs); 0 with fewer than two such answers or no time between.
   */
  readonly answersPerSecond: number;
  /** The most requests in service at once (at most `capacity`); only requests that reach the service count. */
  readonly peakInService: number;
  /** The most requests waiting for a slot at once; 0 without a capacity. */
  readonly peakWaiting: number;
}

export interface Sandbox {
  /** The admin paths' (/__sandbox/*) token, for the header ADMIN_HEADER (x-api-key with a key also does). */
  readonly adminToken: string;
  handle(request: SandboxRequest): SandboxResponse;
  transactions(apiKey?: string): number;
  requests(): number;
  stats(): Stats;
  reset(): void;
  configure(knobs: Partial<SandboxKnobs>): void;
  knobs(): Readonly<SandboxKnobs>;
}

const BY_PATH = new Map<string, Operation>(OPERATIONS.map((op) => [op.path, op]));

interface KeyState {
  transactions: number;
  windowStart: number;
  usedInWindow: number;
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const keys = new Set(options.keys ?? [DEMO_KEY]);
  const seed = options.seed ?? 'sandbox';
  const now = options.now ?? Date.now;
  const latencyMs = options.latencyMs ?? 0;
  const rate = options.rate ?? Number.POSITIVE_INFINITY;
  const knobs: SandboxKnobs = {
    latencyMs,
    latencyP99Ms: options.latencyP99Ms ?? latencyMs,
    rate,
    burst: options.burst ?? defaultBurst(rate),
    capacity: options.capacity ?? Number.POSITIVE_INFINITY,
    faultRate: options.faultRate ?? 0,
    allowance: options.allowance ?? Number.POSITIVE_INFINITY,
    allowanceWindowMs: options.allowanceWindowMs ?? Number.POSITIVE_INFINITY,
    retryAfterSeconds: options.retryAfterSeconds ?? 1,
    misbehave: options.misbehave ?? [],
  };
  const redirectOrigin = options.redirectOrigin ?? 'http://127.0.0.1:9';
  const adminToken = options.adminToken ?? randomToken();
  let perKey = new Map<string, KeyState>();
  let requestCount = 0;
  let byStatus: Record<string, number> = {};
  let faults: Random = seededRandom(`${seed}|faults`);
  let latencies: Random = seededRandom(`${seed}|latency`);
  const buckets = createTokenBuckets({ rate: knobs.rate, burst: knobs.burst });
  const service = createServiceQueue();
  let throttled = 0;
  let served = 0; // answers other than 429
  let firstArrival = Number.NaN;
  let lastEnd = Number.NEGATIVE_INFINITY;
  let arrival = 0; // now() when the request being handled arrived

  /** An answer, sent `delayMs` after the request (by default the fixed latency: it did not reach the service). */
  const answer = (
    status: number,
    body: unknown,
    extraHeaders: Record<string, string> = {},
    delayMs = knobs.latencyMs,
  ): SandboxResponse => {
    const headers: Record<string, string> = { ...extraHeaders };
    let text = '';
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      text = JSON.stringify(body);
    }
    return { status, headers, body: text, delayMs };
  };
  const error = (
    status: number,
    message: string,
    extraHeaders: Record<string, string> = {},
    delayMs = knobs.latencyMs,
  ) => answer(status, { status, error: message }, extraHeaders, delayMs);

  /** The delay of an answer from the service: its wait for a slot plus its service time (plus `extraMs`). */
  const serviceDelay = (extraMs = 0): number => {
    const serviceMs = drawLatency(knobs.latencyMs, knobs.latencyP99Ms, latencies.next) + extraMs;
    const { start } = service.admit(arrival, serviceMs, knobs.capacity);
    return start - arrival + serviceMs;
  };

  /** Counts an answer to a request (admin paths aside) in the stats. */
  const record = (at: number, response: SandboxResponse) => {
    byStatus[response.status] = (byStatus[response.status] ?? 0) + 1;
    if (response.status === 429) throttled++;
    else served++;
    if (Number.isNaN(firstArrival)) firstArrival = at;
    lastEnd = Math.max(lastEnd, at + response.delayMs);
  };

  const stateOf = (key: string): KeyState => {
    let state = perKey.get(key);
    if (!state) {
      state = { transactions: 0, windowStart: now(), usedInWindow: 0 };
      perKey.set(key, state);
    }
    if (now() - state.windowStart >= knobs.allowanceWindowMs) {
      state.windowStart = now();
      state.usedInWindow = 0;
    }
    return state;
  };

  const retryAfter = (state: KeyState) =>
    Number.isFinite(knobs.allowanceWindowMs)
      ? Math.max(1, Math.ceil((state.windowStart + knobs.allowanceWindowMs - now()) / 1000))
      : knobs.retryAfterSeconds;

  const answersPerSecond = () => {
    const seconds = (lastEnd - firstArrival) / 1000;
    if (served < 2 || !(seconds > 0)) return 0;
    return Math.round((served / seconds) * 1000) / 1000;
  };

  const stats = (): Stats => ({
    transactions: [...perKey.values()].reduce((sum, s) => sum + s.transactions, 0),
    requests: requestCount,
    byStatus: { ...byStatus },
    throttled,
    answersPerSecond: answersPerSecond(),
    peakInService: service.peakInService(),
    peakWaiting: service.peakWaiting(),
  });

  /** Why an admin request is refused (401, 403, 405, 415), or undefined when it may go on. */
  const adminRefusal = (action: string, request: SandboxRequest): SandboxResponse | undefined => {
    const token = header(request, ADMIN_HEADER);
    const apiKey = header(request, 'x-api-key');
    if (!token && !apiKey) {
      return error(
        401,
        `Admin paths need a credential: the header ${ADMIN_HEADER} with the admin token printed at start, or x-api-key with one of the sandbox's keys`,
        {},
        0,
      );
    }
    if (token !== adminToken && !(apiKey && keys.has(apiKey))) {
      return error(
        403,
        token
          ? `The ${ADMIN_HEADER} header is not this sandbox's admin token`
          : "The x-api-key header is not one of the sandbox's keys",
        {},
        0,
      );
    }
    const method = ADMIN_METHODS.get(action);
    if (method === undefined) return error(404, `No admin action ${request.method} ${request.path}`, {}, 0);
    if (request.method !== method) {
      return error(405, `${ADMIN_PREFIX}${action} takes ${method} only`, { allow: method }, 0);
    }
    if (method === 'POST' && !/^application\/json\b/i.test(header(request, 'content-type') ?? '')) {
      return error(415, `${ADMIN_PREFIX}${action} needs Content-Type: application/json`, {}, 0);
    }
    return undefined;
  };

  /** An admin path: never delayed, never counted (the caller does not record it). */
  const handleAdmin = (request: SandboxRequest): SandboxResponse => {
    const action = request.path.slice(ADMIN_PREFIX.length).split('?')[0] ?? '';
    const refused = adminRefusal(action, request);
    if (refused) return refused;
    if (action === 'stats') return answer(200, stats(), {}, 0);
    if (action === 'reset') {
      sandbox.reset();
      return answer(200, stats(), {}, 0);
    }
    const parsed = parseJson(request.body);
    if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null) {
      return error(400, 'configure takes a JSON object of knobs', {}, 0);
    }
    const changes = parsed.value as Record<string, unknown>;
    const bad = badLoadKnob(changes);
    if (bad) return error(400, bad, {}, 0);
    if (changes.misbehave !== undefined) {
      const modes = parseMisbehave(changes.misbehave as string | string[]);
      if (!modes.ok) return error(400, modes.message, {}, 0);
      changes.misbehave = modes.modes;
    }
    sandbox.configure(changes as Partial<SandboxKnobs>);
    return answer(200, knobs, {}, 0);
  };

  const handleOperation = (op: Operation, request: SandboxRequest): SandboxResponse => {
    const asked = parseMisbehave(header(request, MISBEHAVE_HEADER));
    if (!asked.ok) return error(400, asked.message);
    const modes = [...new Set([...knobs.misbehave, ...asked.modes])];
    const front = frontMode(modes);
    if (front === 'redirect') return answer(307, undefined, { location: `${redirectOrigin}${request.path}` });
    if (front === 'retry-after-huge')
      return error(429, 'The maximum number of transactions allowed has been reached', {
        'retry-after': '99999',
      });
    if (front === 'retry-after-date')
      return error(429, 'The maximum number of transactions allowed has been reached', {
        'retry-after': retryAfterDate(now()),
      });
    if (request.method !== 'POST') return error(405, `${op.path} takes POST only`, { allow: 'POST' });
    const apiKey = header(request, 'x-api-key');
    if (!apiKey || !keys.has(apiKey)) return error(401, 'The user is invalid; check the x-api-key header');
    // A gateway refuses at once: the request never reaches the service, so no latency either.
    if (!buckets.take(apiKey, arrival)) {
      return error(
        429,
        `Too many requests: the rate limit is ${knobs.rate} per second per key`,
        { 'retry-after': '1' },
        0,
      );
    }
    const contentType = header(request, 'content-type') ?? '';
    if (!/^application\/json\b/i.test(contentType)) {
      return error(415, 'Content-Type must be application/json');
    }
    const parsed = parseJson(request.body);
    if (
      !parsed.ok ||
      parsed.value === null ||
      typeof parsed.value !== 'object' ||
      Array.isArray(parsed.value)
    ) {
      return error(400, 'The body must be a JSON object');
    }
    const problem = strictProblem(op, parsed.value as Record<string, unknown>);
    if (problem) return error(400, problem);
    const input = parsed.value as CleanInput;
    const state = stateOf(apiKey);
    if (state.usedInWindow >= knobs.allowance) {
      return error(429, 'The maximum number of transactions allowed has been reached', {
        'retry-after': String(retryAfter(state)),
      });
    }
    const bill = () => {
      state.transactions++;
      state.usedInWindow++;
    };
    const reserved = reservedOutcome(op.inputs, input);
    switch (reserved) {
      case 'no-match':
        bill();
        return answer(204, undefined, {}, serviceDelay());
      case 'too-many':
        bill();
        return error(440, 'Too many results; refine the search criteria', {}, serviceDelay());
      case 'fault':
        return error(500, 'System error (reserved input)', {}, serviceDelay());
      case 'allowance':
        return error(429, 'The maximum number of transactions allowed has been reached', {
          'retry-after': String(knobs.retryAfterSeconds),
        });
      default:
        break;
    }
    if (knobs.faultRate > 0 && faults.next() < knobs.faultRate)
      return error(500, 'System error (injected fault)', {}, serviceDelay());
    bill();
    const found = syntheticRecord(op, input, seed, reserved === 'formula');
    const delayMs = serviceDelay(reserved === 'slow' ? SLOW_MS : 0);
    if (modes.length === 0) return answer(200, found, {}, delayMs);
    const shaped = misbehavingAnswer(found, modes);
    const response = {
      status: 200,
      headers: { 'content-type': shaped.contentType },
      body: shaped.body,
      delayMs,
    };
    return shaped.delivery ? { ...response, delivery: shaped.delivery } : response;
  };

  const sandbox: Sandbox = {
    adminToken,
    handle(request) {
      if (request.path.startsWith(ADMIN_PREFIX)) return handleAdmin(request);
      requestCount++;
      arrival = now();
      const path = request.path.split('?')[0] ?? '';
      const op = BY_PATH.get(path);
      const response = op ? handleOperation(op, request) : error(404, `No operation at ${path}`);
      record(arrival, response);
      return response;
    },
    transactions(apiKey) {
      if (apiKey === undefined) return stats().transactions;
      return perKey.get(apiKey)?.transactions ?? 0;
    },
    requests: () => requestCount,
    stats,
    reset() {
      perKey = new Map();
      requestCount = 0;
      byStatus = {};
      faults = seededRandom(`${seed}|faults`);
      latencies = seededRandom(`${seed}|latency`);
      buckets.reset();
      service.reset();
      throttled = 0;
      served = 0;
      firstArrival = Number.NaN;
      lastEnd = Number.NEGATIVE_INFINITY;
    },
    configure(changes) {
      if (Array.isArray(changes.misbehave)) {
        const modes = parseMisbehave(changes.misbehave);
        if (modes.ok) knobs.misbehave = modes.modes;
      }
      for (const name of [
        'latencyMs',
        'faultRate',
        'allowance',
        'allowanceWindowMs',
        'retryAfterSeconds',
      ] as const) {
        const value = changes[name];
        if (typeof value === 'number' && !Number.isNaN(value)) knobs[name] = value;
        // JSON has no Infinity: null means "no limit" for the two limits.
        if (value === null && (name === 'allowance' || name === 'allowanceWindowMs')) {
          knobs[name] = Number.POSITIVE_INFINITY;
        }
      }
      configureLoad(knobs, changes, (limits) => buckets.change(limits, now()));
    },
    knobs: () => ({ ...knobs, misbehave: [...knobs.misbehave] }),
  };
  return sandbox;
}

/** The admin actions and the method each takes. */
const ADMIN_METHODS: ReadonlyMap<string, 'GET' | 'POST'> = new Map([
  ['stats', 'GET'],
  ['reset', 'POST'],
  ['configure', 'POST'],
]);

/** 32 hex digits from the platform's cryptographic random source (Node 20 and browsers alike). */
function randomToken(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

type LoadKnob = 'rate' | 'burst' | 'capacity' | 'latencyP99Ms';
const LOAD_KNOBS: readonly LoadKnob[] = ['rate', 'burst', 'capacity', 'latencyP99Ms'];

/** A load knob given a value it cannot take, as a message for configure's 400; undefined when all are fine. */
function badLoadKnob(changes: Record<string, unknown>): string | undefined {
  for (const name of LOAD_KNOBS) {
    const value = changes[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      return `${name} takes a non-negative number, or null`;
    }
    if (name === 'capacity' && (!Number.isInteger(value) || value < 1)) {
      return 'capacity takes a whole number of at least 1, or null for no limit';
    }
  }
  return undefined;
}

/**
 * Applies the load knobs of a configure call. null means: no bucket (`rate`), no limit
 * (`capacity`), the default (`burst`: one second's worth of the rate; `latencyP99Ms`: the median,
 * a fixed latency). A `rate` without a `burst` in the same call takes the default burst, and a
 * `latencyMs` without a `latencyP99Ms` makes the latency fixed, as at start. `rebucket` is told the new bucket
 * limits, which take effect at once.
 */
function configureLoad(
  knobs: SandboxKnobs,
  changes: Partial<Record<keyof SandboxKnobs, unknown>>,
  rebucket: (limits: { rate: number; burst: number }) => void,
): void {
  const given = (name: keyof SandboxKnobs): number | null | undefined => {
    const value = changes[name];
    if (value === null) return null;
    return typeof value === 'number' && value >= 0 ? value : undefined; // NaN fails the comparison
  };
  const rate = given('rate');
  const burst = given('burst');
  if (rate !== undefined || burst !== undefined) {
    const nextRate = rate === undefined ? knobs.rate : (rate ?? Number.POSITIVE_INFINITY);
    const nextBurst =
      typeof burst === 'number'
        ? burst
        : burst === null || rate !== undefined
          ? defaultBurst(nextRate)
          : knobs.burst;
    knobs.rate = nextRate;
    knobs.burst = nextBurst;
    rebucket({ rate: nextRate, burst: nextBurst });
  }
  const capacity = given('capacity');
  if (capacity === null || capacity === Number.POSITIVE_INFINITY) knobs.capacity = Number.POSITIVE_INFINITY;
  else if (capacity !== undefined && Number.isInteger(capacity) && capacity >= 1) knobs.capacity = capacity;
  const p99 = given('latencyP99Ms');
  if (typeof p99 === 'number') knobs.latencyP99Ms = p99;
  // Run after latencyMs is applied: a p99 that is not given follows a new median.
  else if (p99 === null || typeof changes.latencyMs === 'number') knobs.latencyP99Ms = knobs.latencyMs;
}

/** Why a body is not exactly what the API accepts, or undefined when it is. */
function strictProblem(op: Operation, body: Record<string, unknown>): string | undefined {
  for (const [name, value] of Object.entries(body)) {
    if (!op.inputs.some((f) => f.name === name)) {
      const near = matchField(op, name);
      return near
        ? `Unknown parameter ${name}; did you mean ${near.name}? (names are case-sensitive)`
        : `Unknown parameter ${name}; ${op.title} takes ${op.inputs.map((f) => f.name).join(', ')}`;
    }
    if (typeof value !== 'string') return `${name} must be a JSON string`;
  }
  const checked = validate(op, body);
  if (!checked.ok) return checked.message;
  for (const [name, value] of Object.entries(body)) {
    if (value === '') continue;
    if (checked.input[name] !== value) {
      return `${name} is not in the form the API requires; got ${JSON.stringify(value)}, expected ${JSON.stringify(checked.input[name])}`;
    }
  }
  return undefined;
}

function header(request: SandboxRequest, name: string): string | undefined {
  for (const [key, value] of Object.entries(request.headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

export { DEMO_KEY };
