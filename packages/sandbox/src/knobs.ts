// The settings a running sandbox can change (at start, from code, or through the admin path's
// configure), kept apart from the request handling because they have rules of their own: defaults
// that follow other knobs (a burst follows the rate, a p99 follows the median), JSON's null
// standing for "no limit" where JSON has no Infinity, and values refused with a message rather
// than silently applied. Having them in one place keeps createSandbox, configure() and the admin
// path agreeing on those rules.
import { type MisbehaveMode, parseMisbehave } from './misbehave.js';
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

/** The knobs at start: those given, and the defaults for the rest. */
export function initialKnobs(given: Partial<SandboxKnobs>): SandboxKnobs {
  const latencyMs = given.latencyMs ?? 0;
  const rate = given.rate ?? Number.POSITIVE_INFINITY;
  return {
    latencyMs,
    latencyP99Ms: given.latencyP99Ms ?? latencyMs,
    rate,
    burst: given.burst ?? defaultBurst(rate),
    capacity: given.capacity ?? Number.POSITIVE_INFINITY,
    faultRate: given.faultRate ?? 0,
    allowance: given.allowance ?? Number.POSITIVE_INFINITY,
    allowanceWindowMs: given.allowanceWindowMs ?? Number.POSITIVE_INFINITY,
    retryAfterSeconds: given.retryAfterSeconds ?? 1,
    misbehave: given.misbehave ?? [],
  };
}

/**
 * Applies a configure call's changes to `knobs` in place, ignoring values a knob cannot take.
 * `rebucket` is told the new token-bucket limits when the rate or the burst changes.
 */
export function applyKnobs(
  knobs: SandboxKnobs,
  changes: Partial<SandboxKnobs>,
  rebucket: (limits: { rate: number; burst: number }) => void,
): void {
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
  configureLoad(knobs, changes, rebucket);
}

type LoadKnob = 'rate' | 'burst' | 'capacity' | 'latencyP99Ms';
const LOAD_KNOBS: readonly LoadKnob[] = ['rate', 'burst', 'capacity', 'latencyP99Ms'];

/** A load knob given a value it cannot take, as a message for configure's 400; undefined when all are fine. */
export function badLoadKnob(changes: Record<string, unknown>): string | undefined {
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
