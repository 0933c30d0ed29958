// The settings a running sandbox can change (at start, from code, or through the admin path's
// configure), kept apart from the request handling because they have rules of their own: defaults
// that follow other knobs (a burst follows the rate, a p99 follows the median, a σ and a p99 say
// one spread two ways), JSON's null
// standing for "no limit" where JSON has no Infinity, and values refused with a message rather
// than silently applied (each knob's rule is in knob-rules.ts). Having them in one place keeps
// createSandbox, configure(), the admin path and the command agreeing on those rules. A change is
// checked whole before any of it applies: a call with one bad value changes nothing.
import {
  checkKnob,
  checkMisbehave,
  KNOB_NAMES,
  KNOB_RULES,
  MAX_LATENCY_MS,
  type NumberKnob,
  type OverloadMode,
  type SwitchKnob,
} from './knob-rules.js';
import { p99Of, sigmaOf } from './latency.js';
import type { MisbehaveMode } from './misbehave.js';
import { defaultBurst } from './token-bucket.js';

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
  /**
   * The same spread as σ, the standard deviation of the service time's logarithm (0: a fixed
   * latency). Given, it sets the p99 (median x e^(σ x 2.326)); given a p99, it is derived from it.
   */
  latencySigma: number;
  /** Requests per second per key let through by a token bucket in front of the service; Infinity for none. */
  rate: number;
  /** The most a key's bucket holds (requests at once after a pause); defaults to one second's worth, at least 1. */
  burst: number;
  /** Whether the bucket's 429 says `Retry-After: 1`; false for a gateway that says nothing. */
  rateRetryAfter: boolean;
  /** Requests per key per fixed window (windows start on multiples of `windowMs`); Infinity for none. */
  windowLimit: number;
  /** The fixed window's length. */
  windowMs: number;
  /** Whether answers counted by the window say what is left of it (X-RateLimit-*, RateLimit, RateLimit-Policy). */
  rateHeaders: boolean;
  /** Requests in service at once; more wait in a FIFO queue, or are answered 503 (`overload`). Infinity for no limit. */
  capacity: number;
  /** What a request that finds every slot busy gets: a place in the queue, or 503 at once. */
  overload: OverloadMode;
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

/** The knobs when none is given. */
function defaultKnobs(): SandboxKnobs {
  return {
    latencyMs: 0,
    latencyP99Ms: 0,
    latencySigma: 0,
    rate: Number.POSITIVE_INFINITY,
    burst: defaultBurst(Number.POSITIVE_INFINITY),
    rateRetryAfter: true,
    windowLimit: Number.POSITIVE_INFINITY,
    // A gateway's usual "per minute".
    windowMs: 60_000,
    rateHeaders: false,
    capacity: Number.POSITIVE_INFINITY,
    overload: 'queue',
    faultRate: 0,
    allowance: Number.POSITIVE_INFINITY,
    allowanceWindowMs: Number.POSITIVE_INFINITY,
    retryAfterSeconds: 1,
    misbehave: [],
  };
}

/**
 * The knobs at start: those given (the sandbox's options: other fields are not knobs), checked as
 * configure checks them, and the defaults for the rest. A RangeError names a value refused.
 */
export function initialKnobs(options: Partial<Record<keyof SandboxKnobs, unknown>>): SandboxKnobs {
  const given: Record<string, unknown> = {};
  for (const name of KNOB_NAMES) {
    const value = options[name as keyof SandboxKnobs];
    if (value !== undefined) given[name] = value;
  }
  const start = changedKnobs(defaultKnobs(), given);
  if (!start.ok) throw new RangeError(start.message);
  return start.knobs;
}

export type KnobChange =
  | {
      readonly ok: true;
      readonly knobs: SandboxKnobs;
      /** The rate or the burst changed: the token buckets take the new limits at once. */
      readonly rebucket: boolean;
    }
  | { readonly ok: false; readonly message: string };

/**
 * The knobs after a change (configure's body, or the options at start), or why it is refused.
 * null means: no limit (`rate`, `windowLimit`, `capacity`, `allowance`, `allowanceWindowMs`:
 * never), the default (`burst`: one second's worth of the rate; `latencyP99Ms`: the median, and
 * `latencySigma`: 0, a fixed latency). A `rate` without a `burst` takes the default burst, and a
 * `latencyMs` without a spread (`latencyP99Ms` or `latencySigma`) makes the latency fixed, as at
 * start. Values are named as configure takes them, or by `nameOf` (the command's flags).
 */
export function changedKnobs(
  current: Readonly<SandboxKnobs>,
  changes: Readonly<Record<string, unknown>>,
  nameOf: (knob: keyof SandboxKnobs) => string = (knob) => knob,
): KnobChange {
  const unknown = Object.keys(changes).find((name) => !KNOB_NAMES.includes(name));
  if (unknown !== undefined) {
    return {
      ok: false,
      message: `configure has no knob "${unknown}"; the knobs are ${KNOB_NAMES.join(', ')}`,
    };
  }
  const given: Partial<Record<NumberKnob, number | null>> = {};
  const switches: Partial<Record<SwitchKnob, boolean>> = {};
  let overload: OverloadMode | undefined;
  for (const { knob, rule } of KNOB_RULES) {
    if (changes[knob] === undefined) continue;
    const checked = checkKnob(rule, changes[knob], { name: nameOf(knob), nullable: true });
    if (!checked.ok) return checked;
    if (rule.kind === 'number') given[knob as NumberKnob] = checked.value as number | null;
    else if (rule.kind === 'switch') switches[knob as SwitchKnob] = checked.value as boolean;
    else overload = checked.value as OverloadMode;
  }
  const next: SandboxKnobs = { ...current, misbehave: [...current.misbehave] };
  if (changes.misbehave !== undefined) {
    const modes = checkMisbehave(nameOf('misbehave'), changes.misbehave);
    if (!modes.ok) return modes;
    next.misbehave = [...modes.value];
  }
  for (const knob of ['latencyMs', 'windowMs', 'faultRate', 'retryAfterSeconds'] as const) {
    const value = given[knob];
    if (typeof value === 'number') next[knob] = value; // these take no null
  }
  for (const knob of ['windowLimit', 'capacity', 'allowance', 'allowanceWindowMs'] as const) {
    const value = given[knob];
    if (value !== undefined) next[knob] = value ?? Number.POSITIVE_INFINITY;
  }
  for (const knob of ['rateRetryAfter', 'rateHeaders'] as const) {
    const value = switches[knob];
    if (value !== undefined) next[knob] = value;
  }
  if (overload !== undefined) next.overload = overload;
  const rebucket = given.rate !== undefined || given.burst !== undefined;
  if (given.rate !== undefined) next.rate = given.rate ?? Number.POSITIVE_INFINITY;
  if (typeof given.burst === 'number') next.burst = given.burst;
  else if (given.burst === null || given.rate !== undefined) next.burst = defaultBurst(next.rate);
  const spread = spreadRefusal(next, given, nameOf);
  return spread === undefined ? { ok: true, knobs: next, rebucket } : { ok: false, message: spread };
}

/**
 * Sets the latency's spread (`latencyP99Ms` and `latencySigma`, one derived from the other) in
 * `next` from what was given, or says why it is refused. A p99 is a distribution's tail above its
 * median: it must be above a median above 0 (a log-normal has no median of 0), or equal to the
 * median for a fixed latency; so must the p99 a σ makes, which must also be at most an hour, as a
 * p99 given is. Given both (as configure answers them, to be sent back), they must agree.
 */
function spreadRefusal(
  next: SandboxKnobs,
  given: Readonly<Partial<Record<NumberKnob, number | null>>>,
  nameOf: (knob: keyof SandboxKnobs) => string,
): string | undefined {
  const median = next.latencyMs;
  const p99Given = given.latencyP99Ms;
  const sigmaGiven = given.latencySigma;
  if (p99Given === undefined && sigmaGiven === undefined) {
    if (given.latencyMs !== undefined) {
      next.latencyP99Ms = median;
      next.latencySigma = 0;
    }
    return undefined;
  }
  const p99 = p99Given === undefined ? undefined : (p99Given ?? median);
  const sigma = sigmaGiven === undefined ? undefined : (sigmaGiven ?? 0);
  if (p99 !== undefined && p99 !== median && !(median > 0 && p99 > median)) {
    return `${nameOf('latencyP99Ms')} must be above ${nameOf('latencyMs')} (the median, ${median}) with the median above 0, or equal to it for a fixed latency; got ${p99}`;
  }
  if (sigma !== undefined && sigma > 0) {
    if (!(median > 0)) {
      return `${nameOf('latencySigma')} above 0 needs ${nameOf('latencyMs')} (the median) above 0, as a log-normal has no median of 0; got ${sigma} with a median of ${median}`;
    }
    if (p99Of(median, sigma) > MAX_LATENCY_MS) {
      return `${nameOf('latencySigma')} ${sigma} at a median of ${median} makes a p99 of ${Math.round(p99Of(median, sigma))}, past ${MAX_LATENCY_MS} (an hour)`;
    }
  }
  if (p99 !== undefined && sigma !== undefined) {
    // Both given: the numbers configure answered agree to the last digits, not exactly.
    if (Math.abs(sigmaOf(median, p99) - sigma) > 1e-9 * Math.max(1, sigma)) {
      return `${nameOf('latencySigma')} and ${nameOf('latencyP99Ms')} say the latency's spread two ways: give one, or two that agree (σ ${sigma} at a median of ${median} is a p99 of ${Math.round(p99Of(median, sigma) * 1000) / 1000}); got a p99 of ${p99}`;
    }
    next.latencyP99Ms = p99;
    next.latencySigma = sigma;
  } else if (p99 !== undefined) {
    next.latencyP99Ms = p99;
    next.latencySigma = sigmaOf(median, p99);
  } else if (sigma !== undefined) {
    next.latencySigma = sigma;
    next.latencyP99Ms = sigma === 0 ? median : p99Of(median, sigma);
  }
  return undefined;
}
