// The settings a running sandbox can change (at start, from code, or through the admin path's
// configure), kept apart from the request handling because they have rules of their own: defaults
// that follow other knobs (a burst follows the rate, a p99 follows the median), JSON's null
// standing for "no limit" where JSON has no Infinity, and values refused with a message rather
// than silently applied (each knob's rule is in knob-rules.ts). Having them in one place keeps
// createSandbox, configure(), the admin path and the command agreeing on those rules. A change is
// checked whole before any of it applies: a call with one bad value changes nothing.
import { checkMisbehave, checkNumber, KNOB_NAMES, KNOB_RULES, type NumberKnob } from './knob-rules.js';
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

/** The knobs when none is given. */
function defaultKnobs(): SandboxKnobs {
  return {
    latencyMs: 0,
    latencyP99Ms: 0,
    rate: Number.POSITIVE_INFINITY,
    burst: defaultBurst(Number.POSITIVE_INFINITY),
    capacity: Number.POSITIVE_INFINITY,
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
 * null means: no limit (`rate`, `capacity`, `allowance`, `allowanceWindowMs`: never), the default
 * (`burst`: one second's worth of the rate; `latencyP99Ms`: the median, a fixed latency). A `rate`
 * without a `burst` takes the default burst, and a `latencyMs` without a `latencyP99Ms` makes the
 * latency fixed, as at start. Values are named as configure takes them, or by `nameOf` (the
 * command's flags).
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
  for (const { knob, rule } of KNOB_RULES) {
    if (changes[knob] === undefined) continue;
    const checked = checkNumber(rule, changes[knob], { name: nameOf(knob), nullable: true });
    if (!checked.ok) return checked;
    given[knob] = checked.value;
  }
  const next: SandboxKnobs = { ...current, misbehave: [...current.misbehave] };
  if (changes.misbehave !== undefined) {
    const modes = checkMisbehave(nameOf('misbehave'), changes.misbehave);
    if (!modes.ok) return modes;
    next.misbehave = [...modes.value];
  }
  for (const knob of ['latencyMs', 'faultRate', 'retryAfterSeconds'] as const) {
    const value = given[knob];
    if (typeof value === 'number') next[knob] = value; // these take no null
  }
  for (const knob of ['capacity', 'allowance', 'allowanceWindowMs'] as const) {
    const value = given[knob];
    if (value !== undefined) next[knob] = value ?? Number.POSITIVE_INFINITY;
  }
  const rebucket = given.rate !== undefined || given.burst !== undefined;
  if (given.rate !== undefined) next.rate = given.rate ?? Number.POSITIVE_INFINITY;
  if (typeof given.burst === 'number') next.burst = given.burst;
  else if (given.burst === null || given.rate !== undefined) next.burst = defaultBurst(next.rate);
  if (typeof given.latencyP99Ms === 'number') next.latencyP99Ms = given.latencyP99Ms;
  else if (given.latencyP99Ms === null || given.latencyMs !== undefined) next.latencyP99Ms = next.latencyMs;
  const p99 = p99Refusal(next, nameOf);
  return p99 === undefined ? { ok: true, knobs: next, rebucket } : { ok: false, message: p99 };
}

/**
 * A p99 is a distribution's tail above its median: it must be above a median above 0 (a log-normal
 * has no median of 0), or equal to the median for a fixed latency.
 */
function p99Refusal(knobs: SandboxKnobs, nameOf: (knob: keyof SandboxKnobs) => string): string | undefined {
  const { latencyMs, latencyP99Ms } = knobs;
  if (latencyP99Ms === latencyMs || (latencyMs > 0 && latencyP99Ms > latencyMs)) return undefined;
  return `${nameOf('latencyP99Ms')} must be above ${nameOf('latencyMs')} (the median, ${latencyMs}) with the median above 0, or equal to it for a fixed latency; got ${latencyP99Ms}`;
}
