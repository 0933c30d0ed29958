// One call of an operation, from the request to the answer, in the order a real deployment would
// check it: misbehaviours in front of the service → not POST 405 → x-api-key missing or unknown
// 401 → the key's token bucket empty 429 (a gateway, answered at once) → Content-Type not JSON 415
// → body not a JSON object 400 → unknown field, non-string value, broken bound or requirement rule
// 400 → allowance used up 429 → the service: reserved input or injected fault → 200 record. The
// order is the contract clients are tested against (which status wins when a request is wrong in
// two ways), so it is kept in one function here, with the parts it consults (knobs, allowance,
// service model, buckets) passed in. The sandbox is strict where a lenient server would hide
// client bugs: values must already be normalised ("(555) 010-2030" is a 400, as the API says
// "numeric only"), and fields an operation does not take are a 400.
import { type CleanInput, matchField, type Operation, validate } from '@enrich/core';
import type { Allowances } from './allowance.js';
import {
  answer,
  errorAnswer,
  header,
  parseJson,
  type SandboxRequest,
  type SandboxResponse,
} from './exchange.js';
import type { SandboxKnobs } from './knobs.js';
import {
  frontMode,
  MISBEHAVE_HEADER,
  misbehavingAnswer,
  parseMisbehave,
  retryAfterDate,
} from './misbehave.js';
import { reservedOutcome, SLOW_MS } from './reserved.js';
import type { ServiceModel } from './service.js';
import { syntheticRecord } from './synthetic.js';
import type { TokenBuckets } from './token-bucket.js';

/** What an operation call consults: the sandbox's settings and the state it shares across calls. */
export interface OperationContext {
  readonly knobs: Readonly<SandboxKnobs>;
  readonly keys: ReadonlySet<string>;
  readonly seed: string;
  readonly now: () => number;
  /** Where `redirect` points. */
  readonly redirectOrigin: string;
  readonly buckets: TokenBuckets;
  readonly allowances: Allowances;
  readonly service: ServiceModel;
}

const SPENT = 'The maximum number of transactions allowed has been reached';

/** The answer to a request for `op` that arrived at `arrival`. */
export function handleOperation(
  op: Operation,
  request: SandboxRequest,
  arrival: number,
  ctx: OperationContext,
): SandboxResponse {
  const { knobs, now, allowances, service } = ctx;
  // By default the fixed latency: the answer did not reach the service.
  const error = (
    status: number,
    message: string,
    extraHeaders: Record<string, string> = {},
    delayMs = knobs.latencyMs,
  ) => errorAnswer(status, message, extraHeaders, delayMs);
  const serviceDelay = (extraMs = 0) => service.delay(arrival, extraMs);

  const asked = parseMisbehave(header(request, MISBEHAVE_HEADER));
  if (!asked.ok) return error(400, asked.message);
  const modes = [...new Set([...knobs.misbehave, ...asked.modes])];
  const front = frontMode(modes);
  if (front === 'redirect')
    return answer(307, undefined, { location: `${ctx.redirectOrigin}${request.path}` }, knobs.latencyMs);
  if (front === 'retry-after-huge') return error(429, SPENT, { 'retry-after': '99999' });
  if (front === 'retry-after-date') return error(429, SPENT, { 'retry-after': retryAfterDate(now()) });
  if (request.method !== 'POST') return error(405, `${op.path} takes POST only`, { allow: 'POST' });
  const apiKey = header(request, 'x-api-key');
  if (!apiKey || !ctx.keys.has(apiKey)) return error(401, 'The user is invalid; check the x-api-key header');
  // A gateway refuses at once: the request never reaches the service, so no latency either.
  if (!ctx.buckets.take(apiKey, arrival)) {
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
  const account = allowances.account(apiKey);
  if (allowances.spent(account)) {
    return error(429, SPENT, { 'retry-after': String(allowances.retryAfter(account)) });
  }
  const bill = () => allowances.bill(account);
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
      return error(429, SPENT, { 'retry-after': String(knobs.retryAfterSeconds) });
    default:
      break;
  }
  if (service.fault()) return error(500, 'System error (injected fault)', {}, serviceDelay());
  bill();
  const found = syntheticRecord(op, input, ctx.seed, reserved === 'formula');
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
