// One call of an operation, from the request to the answer, in the order a real deployment would
// check it: misbehaviours in front of the service → not POST 405 → x-api-key missing or unknown
// 401 → the key's token bucket empty 429, then the key's fixed window spent 429 (a gateway,
// answered at once) → Content-Type not JSON 415 → body not a JSON object 400 → unknown field,
// non-string value, broken bound or requirement rule 400 → allowance used up 429 → every slot of
// the service busy 503 (with `overload` at '503', at once) → the service: reserved input or
// injected fault → 200 record. With `rateHeaders`, every answer the window counted says what is
// left of it. The
// order is the contract clients are tested against (which status wins when a request is wrong in
// two ways), so it is kept in one function here, with the parts it consults (knobs, allowance,
// service model, buckets) passed in. The sandbox is strict where a lenient server would hide
// client bugs: values must already be normalised ("(555) 010-2030" is a 400, as the API says
// "numeric only"), and fields an operation does not take are a 400 (body-rules.ts: what the API
// refuses, and only that: Email by the API's words, not core's client checks).
import type { CleanInput, Operation } from '@enrich/core';
import type { Allowances } from './allowance.js';
import { bodyProblem } from './body-rules.js';
import {
  answer,
  errorAnswer,
  header,
  parseJson,
  type SandboxRequest,
  type SandboxResponse,
  withHeaders,
} from './exchange.js';
import type { FixedWindows } from './fixed-window.js';
import type { SandboxKnobs } from './knobs.js';
import {
  frontMode,
  MISBEHAVE_HEADER,
  type MisbehaveMode,
  misbehavingAnswer,
  requestModes,
  retryAfterDate,
} from './misbehave.js';
import { rateLimitHeaders, secondsUntil } from './rate-headers.js';
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
  readonly windows: FixedWindows;
  readonly allowances: Allowances;
  readonly service: ServiceModel;
}

const SPENT = 'The maximum number of transactions allowed has been reached';

/** An error answer that takes, unless told otherwise, the fixed latency: it did not reach the service. */
function errorOf(knobs: Readonly<SandboxKnobs>) {
  return (
    status: number,
    message: string,
    extraHeaders: Record<string, string> = {},
    delayMs = knobs.latencyMs,
  ) => errorAnswer(status, message, extraHeaders, delayMs);
}

/** The answer to a request for `op` that arrived at `arrival`. */
export function handleOperation(
  op: Operation,
  request: SandboxRequest,
  arrival: number,
  ctx: OperationContext,
): SandboxResponse {
  const { knobs, now } = ctx;
  const error = errorOf(knobs);
  const asked = requestModes(knobs.misbehave, header(request, MISBEHAVE_HEADER));
  if (!asked.ok) return error(400, asked.message);
  const { modes } = asked;
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
      knobs.rateRetryAfter ? { 'retry-after': '1' } : {},
      0,
    );
  }
  const counted = ctx.windows.take(apiKey, arrival);
  const limitHeaders =
    counted !== undefined && knobs.rateHeaders ? rateLimitHeaders(counted, knobs.windowMs, arrival) : {};
  if (counted !== undefined && !counted.allowed) {
    return error(
      429,
      `Too many requests: the limit is ${counted.limit} per ${knobs.windowMs / 1000} s per key`,
      { 'retry-after': String(secondsUntil(counted.resetAt, arrival)), ...limitHeaders },
      0,
    );
  }
  return withHeaders(pastGateway(op, request, arrival, ctx, apiKey, modes), limitHeaders);
}

/** The answer to a request the gateway let through: from the body's checks to the service's answer. */
function pastGateway(
  op: Operation,
  request: SandboxRequest,
  arrival: number,
  ctx: OperationContext,
  apiKey: string,
  modes: readonly MisbehaveMode[],
): SandboxResponse {
  const { knobs, allowances, service } = ctx;
  const error = errorOf(knobs);
  const serviceDelay = (extraMs = 0) => service.delay(arrival, extraMs);
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
  const problem = bodyProblem(op, parsed.value as Record<string, unknown>);
  if (problem) return error(400, problem);
  const input = parsed.value as CleanInput;
  const account = allowances.account(apiKey);
  if (allowances.spent(account)) {
    return error(429, SPENT, { 'retry-after': String(allowances.retryAfter(account)) });
  }
  const bill = () => allowances.bill(account);
  const reserved = reservedOutcome(op.inputs, input);
  // The reserved 429 stands for the allowance, answered in front of the service.
  if (reserved === 'allowance') {
    return error(429, SPENT, { 'retry-after': String(knobs.retryAfterSeconds) });
  }
  // An overloaded backend turns the request away before any work: not billed, no slot, no fault drawn.
  if (service.overloaded(arrival)) {
    return error(503, `Service overloaded: all ${knobs.capacity} slots are busy`, {}, 0);
  }
  switch (reserved) {
    case 'no-match':
      bill();
      return answer(204, undefined, {}, serviceDelay());
    case 'too-many':
      bill();
      return error(440, 'Too many results; refine the search criteria', {}, serviceDelay());
    case 'fault':
      return error(500, 'System error (reserved input)', {}, serviceDelay());
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
