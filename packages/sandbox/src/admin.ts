// The admin paths (/__sandbox/stats, reset, configure) that a test suite uses to read and steer a
// running sandbox. They are guarded separately from the API's own checks because the threat is
// different: a web page the developer happens to open must not be able to reset the counts or
// change the knobs of a sandbox on localhost. So a credential comes first (ADMIN_HEADER with the
// admin token, or x-api-key with one of the keys; 401 without, 403 with a wrong one), then the
// method (405), then for the POSTs Content-Type: application/json (415): a custom header or a JSON
// body makes a browser ask first, and the sandbox never allows it. Admin answers take no latency,
// no slot, no token, and are not counted in the stats.
import {
  answer,
  errorAnswer,
  header,
  parseJson,
  type SandboxRequest,
  type SandboxResponse,
} from './exchange.js';
import type { SandboxKnobs } from './knobs.js';
import type { Stats } from './stats.js';

export const ADMIN_PREFIX = '/__sandbox/';
/** The header that carries the admin token to the admin paths (x-api-key with a key also does). */
export const ADMIN_HEADER = 'x-sandbox-admin';

/** What the admin paths read and steer: the sandbox, seen from its admin side. */
export interface AdminTarget {
  readonly adminToken: string;
  readonly keys: ReadonlySet<string>;
  /** The live knobs, answered by configure. */
  readonly knobs: Readonly<SandboxKnobs>;
  stats(): Stats;
  reset(): void;
  /** Applies configure's body, checked whole (knobs.ts); the message of a refusal, nothing changed. */
  configure(changes: Readonly<Record<string, unknown>>): string | undefined;
}

/** The admin actions and the method each takes. */
const ADMIN_METHODS: ReadonlyMap<string, 'GET' | 'POST'> = new Map([
  ['stats', 'GET'],
  ['reset', 'POST'],
  ['configure', 'POST'],
]);

/** An admin answer: never delayed. */
const refuse = (status: number, message: string, extraHeaders: Record<string, string> = {}) =>
  errorAnswer(status, message, extraHeaders, 0);

/** Why an admin request is refused (401, 403, 404, 405, 415), or undefined when it may go on. */
function adminRefusal(
  action: string,
  request: SandboxRequest,
  target: AdminTarget,
): SandboxResponse | undefined {
  const token = header(request, ADMIN_HEADER);
  const apiKey = header(request, 'x-api-key');
  if (!token && !apiKey) {
    return refuse(
      401,
      `Admin paths need a credential: the header ${ADMIN_HEADER} with the admin token printed at start, or x-api-key with one of the sandbox's keys`,
    );
  }
  if (token !== target.adminToken && !(apiKey && target.keys.has(apiKey))) {
    return refuse(
      403,
      token
        ? `The ${ADMIN_HEADER} header is not this sandbox's admin token`
        : "The x-api-key header is not one of the sandbox's keys",
    );
  }
  const method = ADMIN_METHODS.get(action);
  if (method === undefined) return refuse(404, `No admin action ${request.method} ${request.path}`);
  if (request.method !== method) {
    return refuse(405, `${ADMIN_PREFIX}${action} takes ${method} only`, { allow: method });
  }
  if (method === 'POST' && !/^application\/json\b/i.test(header(request, 'content-type') ?? '')) {
    return refuse(415, `${ADMIN_PREFIX}${action} needs Content-Type: application/json`);
  }
  return undefined;
}

/** An admin path: never delayed, never counted (the caller does not record it). */
export function handleAdmin(request: SandboxRequest, target: AdminTarget): SandboxResponse {
  const action = request.path.slice(ADMIN_PREFIX.length).split('?')[0] ?? '';
  const refused = adminRefusal(action, request, target);
  if (refused) return refused;
  if (action === 'stats') return answer(200, target.stats(), {}, 0);
  if (action === 'reset') {
    target.reset();
    return answer(200, target.stats(), {}, 0);
  }
  const parsed = parseJson(request.body);
  const body = parsed.ok ? parsed.value : undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return refuse(400, 'configure takes a JSON object of knobs');
  }
  const why = target.configure(body as Record<string, unknown>);
  if (why !== undefined) return refuse(400, why);
  return answer(200, target.knobs, {}, 0);
}

/** 32 hex digits from the platform's cryptographic random source (Node 20 and browsers alike). */
export function randomToken(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
