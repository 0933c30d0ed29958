// The API's behaviour as one synchronous function, request in, response out: the server wraps it
// in HTTP, and synchronous harnesses (the Apps Script test runtime) call it directly.
//
// Checks, in this order, each answered with the API's status codes where it has one:
//   admin path → unknown path 404 → not POST 405 → x-api-key missing or unknown 401 →
//   Content-Type not JSON 415 → body not a JSON object 400 → unknown field, non-string value,
//   broken bound or requirement rule 400 → allowance used up 429 → reserved input or injected
//   fault → 200 record.
// The sandbox is strict where a lenient server would hide client bugs: values must already be
// normalised ("(555) 010-2030" is a 400, as the API says "numeric only"), and fields an operation
// does not take are a 400.
// Error bodies: the API does not show their shape; the sandbox answers
// {"status": <code>, "error": "<message>"} as JSON.
// Billing: 200, 204 and 440 count as transactions (core's BILLABLE_STATUSES).
// Misbehaviour on request (misbehave.ts): the modes in front of the service answer before the key
// is checked; the others change a 200 record, which is billed as any 200.
import { type CleanInput, matchField, OPERATIONS, type Operation, validate } from '@enrich/core';
import { DEMO_KEY } from './demo-key.js';
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

export const ADMIN_PREFIX = '/__sandbox/';

export interface SandboxKnobs {
  /** Added to every answer by the server, and reported as `delayMs` by handle(). */
  latencyMs: number;
  /** Share of otherwise good requests answered 500, drawn from a seeded sequence. */
  faultRate: number;
  /** Billable transactions per key per window; Infinity for none. */
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
  readonly byStatus: Readonly<Record<string, number>>;
}

export interface Sandbox {
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
  const knobs: SandboxKnobs = {
    latencyMs: options.latencyMs ?? 0,
    faultRate: options.faultRate ?? 0,
    allowance: options.allowance ?? Number.POSITIVE_INFINITY,
    allowanceWindowMs: options.allowanceWindowMs ?? Number.POSITIVE_INFINITY,
    retryAfterSeconds: options.retryAfterSeconds ?? 1,
    misbehave: options.misbehave ?? [],
  };
  const redirectOrigin = options.redirectOrigin ?? 'http://127.0.0.1:9';
  let perKey = new Map<string, KeyState>();
  let requestCount = 0;
  let byStatus: Record<string, number> = {};
  let faults: Random = seededRandom(`${seed}|faults`);

  const answer = (status: number, body: unknown, extraHeaders: Record<string, string> = {}, delayMs = 0) => {
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    const headers: Record<string, string> = { ...extraHeaders };
    let text = '';
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      text = JSON.stringify(body);
    }
    return { status, headers, body: text, delayMs: knobs.latencyMs + delayMs };
  };
  const error = (status: number, message: string, extraHeaders: Record<string, string> = {}) =>
    answer(status, { status, error: message }, extraHeaders);

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

  const stats = (): Stats => ({
    transactions: [...perKey.values()].reduce((sum, s) => sum + s.transactions, 0),
    requests: requestCount,
    byStatus: { ...byStatus },
  });

  const handleAdmin = (request: SandboxRequest): SandboxResponse => {
    const action = request.path.slice(ADMIN_PREFIX.length).split('?')[0];
    if (action === 'stats' && request.method === 'GET') return answer(200, stats());
    if (action === 'reset' && request.method === 'POST') {
      sandbox.reset();
      return answer(200, stats());
    }
    if (action === 'configure' && request.method === 'POST') {
      const parsed = parseJson(request.body);
      if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null) {
        return error(400, 'configure takes a JSON object of knobs');
      }
      const changes = parsed.value as Record<string, unknown>;
      if (changes.misbehave !== undefined) {
        const modes = parseMisbehave(changes.misbehave as string | string[]);
        if (!modes.ok) return error(400, modes.message);
        changes.misbehave = modes.modes;
      }
      sandbox.configure(changes as Partial<SandboxKnobs>);
      return answer(200, knobs);
    }
    return error(404, `No admin action ${request.method} ${request.path}`);
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
        return answer(204, undefined);
      case 'too-many':
        bill();
        return error(440, 'Too many results; refine the search criteria');
      case 'fault':
        return error(500, 'System error (reserved input)');
      case 'allowance':
        return error(429, 'The maximum number of transactions allowed has been reached', {
          'retry-after': String(knobs.retryAfterSeconds),
        });
      default:
        break;
    }
    if (knobs.faultRate > 0 && faults.next() < knobs.faultRate)
      return error(500, 'System error (injected fault)');
    bill();
    const record = syntheticRecord(op, input, seed, reserved === 'formula');
    const delayMs = reserved === 'slow' ? SLOW_MS : 0;
    if (modes.length === 0) return answer(200, record, {}, delayMs);
    const shaped = misbehavingAnswer(record, modes);
    byStatus[200] = (byStatus[200] ?? 0) + 1;
    const response = {
      status: 200,
      headers: { 'content-type': shaped.contentType },
      body: shaped.body,
      delayMs: knobs.latencyMs + delayMs,
    };
    return shaped.delivery ? { ...response, delivery: shaped.delivery } : response;
  };

  const sandbox: Sandbox = {
    handle(request) {
      if (request.path.startsWith(ADMIN_PREFIX)) return handleAdmin(request);
      requestCount++;
      const path = request.path.split('?')[0] ?? '';
      const op = BY_PATH.get(path);
      if (!op) return error(404, `No operation at ${path}`);
      return handleOperation(op, request);
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
    },
    knobs: () => ({ ...knobs, misbehave: [...knobs.misbehave] }),
  };
  return sandbox;
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
