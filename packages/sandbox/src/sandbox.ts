// The API's behaviour as one synchronous function, request in, response out: the server wraps it
// in HTTP, and synchronous harnesses (the Apps Script test runtime) call it directly. This module
// ties the parts together and owns nothing but their wiring and the request count; each part is a
// module of its own:
//   operation.ts  one operation call, its checks in the API's order (405, 401, 429, 415, 400, ...);
//   admin.ts      the admin paths (/__sandbox/*) and their credential;
//   knobs.ts      the settings, their defaults and how a change applies (whole, or not at all);
//   knob-rules.ts each knob's rule, which the command's flags (command-flags.ts) share;
//   allowance.ts  billing (200, 204 and 440 count, as core's PAID_STATUSES) and the allowance's 429;
//   token-bucket.ts, fixed-window.ts  the gateway's two limits (rate-headers.ts: what it says of them);
//   service.ts    the load model: service time (latency.ts), slots (capacity.ts), injected faults;
//   stats.ts      the counts behind GET /__sandbox/stats;
//   exchange.ts   the request and answer shapes, and the JSON error body.
// Unknown paths are a 404. Load is all from now(), never with timers, so a virtual clock drives
// it: answers that reach the service (200, 204, 440, 500) take a drawn service time and may wait
// for a slot; the token bucket's 429 answers at once (a gateway in front of the service, see
// token-bucket.ts), as do the fixed window's 429 and the overloaded service's 503; every other
// answer takes the fixed `latencyMs` and occupies no slot.
// Misbehaviour on request (misbehave.ts): the modes in front of the service answer before the key
// is checked; the others change a 200 record, which is billed as any 200; `echo-key` is applied
// here, to every answer to an operation path whatever gave it, as a gateway wraps them all.
import { OPERATIONS, type Operation } from '@enrich/core';
import { ADMIN_HEADER, ADMIN_PREFIX, handleAdmin, randomToken } from './admin.js';
import { createAllowances } from './allowance.js';
import { DEMO_KEY } from './demo-key.js';
import { errorAnswer, header, type SandboxRequest, type SandboxResponse } from './exchange.js';
import { createFixedWindows } from './fixed-window.js';
import { changedKnobs, initialKnobs, type KnobChange, type SandboxKnobs } from './knobs.js';
import { echoKey, MISBEHAVE_HEADER, requestModes } from './misbehave.js';
import { handleOperation, type OperationContext } from './operation.js';
import { createServiceModel } from './service.js';
import { createAnswerCounts, type Stats } from './stats.js';
import { createTokenBuckets } from './token-bucket.js';

export interface SandboxOptions extends Partial<SandboxKnobs> {
  readonly keys?: readonly string[];
  readonly seed?: string;
  readonly now?: () => number;
  /** Where `redirect` points (the server's decoy); the discard port when there is no server. */
  readonly redirectOrigin?: string;
  /** The admin paths' token (header ADMIN_HEADER); random when not given. */
  readonly adminToken?: string;
}

export interface Sandbox {
  /** The admin paths' (/__sandbox/*) token, for the header ADMIN_HEADER (x-api-key with a key also does). */
  readonly adminToken: string;
  handle(request: SandboxRequest): SandboxResponse;
  transactions(apiKey?: string): number;
  requests(): number;
  stats(): Stats;
  reset(): void;
  /** Changes the knobs given (knobs.ts): a RangeError, and nothing changed, when one is refused. */
  configure(knobs: Partial<SandboxKnobs>): void;
  knobs(): Readonly<SandboxKnobs>;
}

const BY_PATH = new Map<string, Operation>(OPERATIONS.map((op) => [op.path, op]));

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const context = contextOf(options);
  const { knobs, keys, now, buckets, windows, allowances, service } = context;
  const adminToken = options.adminToken ?? randomToken();
  const counts = createAnswerCounts();
  let requestCount = 0;

  /** Checks a change of knobs and applies it in place (every part reads them live), or says why not. */
  const change = (changes: Partial<SandboxKnobs>): string | undefined => {
    const checked: KnobChange = changedKnobs(knobs, changes);
    if (!checked.ok) return checked.message;
    Object.assign(knobs, checked.knobs);
    if (checked.rebucket) buckets.change({ rate: knobs.rate, burst: knobs.burst }, now());
    return undefined;
  };

  const stats = (): Stats => ({
    transactions: allowances.transactions(),
    requests: requestCount,
    byStatus: counts.byStatus(),
    throttled: counts.throttled(),
    overloaded: counts.overloaded(),
    answersPerSecond: counts.answersPerSecond(),
    peakInService: service.peakInService(),
    peakWaiting: service.peakWaiting(),
  });

  const sandbox: Sandbox = {
    adminToken,
    handle(request) {
      if (request.path.startsWith(ADMIN_PREFIX)) {
        return handleAdmin(request, {
          adminToken,
          keys,
          knobs,
          stats,
          reset: sandbox.reset,
          configure: change,
        });
      }
      requestCount++;
      const arrival = now();
      const response = answer(request, arrival, context);
      counts.record(arrival, response);
      return response;
    },
    transactions: (apiKey) => allowances.transactions(apiKey),
    requests: () => requestCount,
    stats,
    reset() {
      allowances.reset();
      requestCount = 0;
      counts.reset();
      service.reset();
      buckets.reset();
      windows.reset();
    },
    configure(changes) {
      const refused = change(changes);
      if (refused !== undefined) throw new RangeError(refused);
    },
    knobs: () => ({ ...knobs, misbehave: [...knobs.misbehave] }),
  };
  return sandbox;
}

/** The parts an operation call reads (operation.ts), made from the options; the knobs change in place. */
function contextOf(options: SandboxOptions): OperationContext & { readonly knobs: SandboxKnobs } {
  const knobs: SandboxKnobs = initialKnobs(options);
  const seed = options.seed ?? 'sandbox';
  const now = options.now ?? Date.now;
  return {
    knobs,
    keys: new Set(options.keys ?? [DEMO_KEY]),
    seed,
    now,
    redirectOrigin: options.redirectOrigin ?? 'http://127.0.0.1:9',
    buckets: createTokenBuckets({ rate: knobs.rate, burst: knobs.burst }),
    windows: createFixedWindows(knobs),
    allowances: createAllowances(knobs, now),
    service: createServiceModel(knobs, seed),
  };
}

/** The answer to a request on an operation path (a 404 elsewhere), with the key echoed if asked. */
function answer(request: SandboxRequest, arrival: number, context: OperationContext): SandboxResponse {
  const path = request.path.split('?')[0] ?? '';
  const op = BY_PATH.get(path);
  let response = op
    ? handleOperation(op, request, arrival, context)
    : errorAnswer(404, `No operation at ${path}`, {}, context.knobs.latencyMs);
  const modes = requestModes(context.knobs.misbehave, header(request, MISBEHAVE_HEADER));
  if (op && modes.ok && modes.modes.includes('echo-key')) {
    response = echoKey(response, header(request, 'x-api-key'));
  }
  return response;
}

export type { SandboxKnobs, SandboxRequest, SandboxResponse, Stats };
export { ADMIN_HEADER, ADMIN_PREFIX, DEMO_KEY };
