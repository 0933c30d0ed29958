// The rule of every knob, in one table read by each way a knob is set: the command's flags and
// environment variables (command-flags.ts), the admin path's configure (a 400), and code
// (createSandbox's options and configure(): a RangeError). One table, so that a value refused one
// way is refused every way, with the same words: the name as the user wrote it (`--fault-rate`,
// `SANDBOX_FAULT_RATE` or `faultRate`), the rule, and what was given. knobs.ts applies the values
// that pass; the rules that tie two knobs together (a p99 above its median, a σ and a p99 that
// agree) are there too. A knob holds a number, one of a few words (a choice), or true or false (a
// switch, whose flag takes no value); misbehave, a list of modes, has its own check below.
import { type MisbehaveMode, parseMisbehave } from './misbehave.js';

/**
 * The longest latency (an hour). A service time is waited for with a timer, and Node runs a timer
 * of more than 2^31 - 1 ms (24.8 days) at once: a latency of 1e12 used to answer immediately. An
 * hour is far past any client's timeout, which is what a long latency is for.
 */
export const MAX_LATENCY_MS = 3_600_000;

/** The knobs that hold a number. */
export type NumberKnob =
  | 'latencyMs'
  | 'latencyP99Ms'
  | 'latencySigma'
  | 'rate'
  | 'burst'
  | 'capacity'
  | 'windowLimit'
  | 'windowMs'
  | 'faultRate'
  | 'allowance'
  | 'allowanceWindowMs'
  | 'retryAfterSeconds';
/** The knobs that hold one of a few words. */
export type ChoiceKnob = 'overload';
/** The knobs that hold true or false. */
export type SwitchKnob = 'rateRetryAfter' | 'rateHeaders';

/** What a backend at its capacity does with one more request: queue it, or answer 503 at once. */
export const OVERLOAD_MODES = ['queue', '503'] as const;
export type OverloadMode = (typeof OVERLOAD_MODES)[number];

export interface NumberRule {
  readonly kind: 'number';
  readonly whole?: boolean;
  readonly min: number;
  readonly max?: number;
  /** The bound in words, after the number ("an hour"). */
  readonly maxWords?: string;
  /** "milliseconds": what the number counts. */
  readonly unit?: string;
  /**
   * What null stands for, where a knob takes it (JSON has no Infinity). Such a knob also takes
   * Infinity from code, its own value for "no limit", unless `finite`.
   */
  readonly nullMeans?: string;
  readonly finite?: boolean;
}

export interface ChoiceRule {
  readonly kind: 'choice';
  readonly choices: readonly string[];
}

/** true or false; its flag takes no value and sets `flag.sets`, its variable takes 1 or 0. */
export interface SwitchRule {
  readonly kind: 'switch';
}

export type KnobRule =
  | { readonly knob: NumberKnob; readonly rule: NumberRule; readonly flag?: KnobFlag }
  | { readonly knob: ChoiceKnob; readonly rule: ChoiceRule; readonly flag: KnobFlag }
  | { readonly knob: SwitchKnob; readonly rule: SwitchRule; readonly flag: SwitchFlag };

export interface KnobFlag {
  /** Without the --. */
  readonly name: string;
  readonly variable: string;
  /** What --help and the README write after the flag: `--latency MS`. */
  readonly placeholder: string;
  /** A flag that counts in another unit than its knob: seconds, 1000 to the millisecond. */
  readonly unit?: { readonly name: string; readonly toKnob: number };
}

/**
 * A switch's flag: given, it sets the knob to `sets` (`--no-rate-retry-after` sets false). Its
 * variable holds the knob's own value, 1 or 0, whichever way the flag points.
 */
export interface SwitchFlag {
  readonly name: string;
  readonly variable: string;
  readonly sets: boolean;
}

const MS = 'milliseconds';
const LATENCY: NumberRule = { kind: 'number', min: 0, max: MAX_LATENCY_MS, maxWords: 'an hour', unit: MS };

/** The largest σ: a p99 about 1,000 times the median, far past any service worth modelling. */
export const MAX_LATENCY_SIGMA = 3;

/** Every knob but misbehave, in the order configure's answer and its messages list them. */
export const KNOB_RULES: readonly KnobRule[] = [
  {
    knob: 'latencyMs',
    rule: LATENCY,
    flag: { name: 'latency', variable: 'SANDBOX_LATENCY_MS', placeholder: 'MS' },
  },
  {
    knob: 'latencyP99Ms',
    rule: { ...LATENCY, nullMeans: 'the median (a fixed latency)', finite: true },
    flag: { name: 'latency-p99', variable: 'SANDBOX_LATENCY_P99_MS', placeholder: 'MS' },
  },
  // The same spread as the p99, said the way papers and simulators say it (knobs.ts ties the two).
  {
    knob: 'latencySigma',
    rule: {
      kind: 'number',
      min: 0,
      max: MAX_LATENCY_SIGMA,
      nullMeans: '0 (a fixed latency)',
      finite: true,
    },
    flag: { name: 'latency-sigma', variable: 'SANDBOX_LATENCY_SIGMA', placeholder: 'S' },
  },
  {
    knob: 'rate',
    rule: { kind: 'number', min: 0, unit: 'requests per second', nullMeans: 'no limit' },
    flag: { name: 'rate', variable: 'SANDBOX_RATE', placeholder: 'N' },
  },
  // A bucket that cannot hold one whole token would let nothing through.
  {
    knob: 'burst',
    rule: { kind: 'number', min: 1, nullMeans: 'the default (the rate, at least 1)' },
    flag: { name: 'burst', variable: 'SANDBOX_BURST', placeholder: 'N' },
  },
  // Gateways that say nothing of when to come back: the client must find the pace alone.
  {
    knob: 'rateRetryAfter',
    rule: { kind: 'switch' },
    flag: { name: 'no-rate-retry-after', variable: 'SANDBOX_RATE_RETRY_AFTER', sets: false },
  },
  // A window of 0 requests is a gateway that refuses everything, as an allowance of 0 is.
  {
    knob: 'windowLimit',
    rule: { kind: 'number', whole: true, min: 0, unit: 'requests', nullMeans: 'no limit' },
    flag: { name: 'window-limit', variable: 'SANDBOX_WINDOW_LIMIT', placeholder: 'N' },
  },
  // At least a millisecond: a window of 0 would never end.
  {
    knob: 'windowMs',
    rule: { kind: 'number', min: 1, unit: MS },
    flag: { name: 'window-ms', variable: 'SANDBOX_WINDOW_MS', placeholder: 'MS' },
  },
  {
    knob: 'rateHeaders',
    rule: { kind: 'switch' },
    flag: { name: 'rate-headers', variable: 'SANDBOX_RATE_HEADERS', sets: true },
  },
  {
    knob: 'capacity',
    rule: { kind: 'number', whole: true, min: 1, nullMeans: 'no limit' },
    flag: { name: 'capacity', variable: 'SANDBOX_CAPACITY', placeholder: 'N' },
  },
  {
    knob: 'overload',
    rule: { kind: 'choice', choices: OVERLOAD_MODES },
    flag: { name: 'overload', variable: 'SANDBOX_OVERLOAD', placeholder: 'MODE' },
  },
  {
    knob: 'faultRate',
    rule: { kind: 'number', min: 0, max: 1 },
    flag: { name: 'fault-rate', variable: 'SANDBOX_FAULT_RATE', placeholder: 'R' },
  },
  {
    knob: 'allowance',
    rule: { kind: 'number', whole: true, min: 0, nullMeans: 'no limit' },
    flag: { name: 'allowance', variable: 'SANDBOX_ALLOWANCE', placeholder: 'N' },
  },
  {
    knob: 'allowanceWindowMs',
    rule: { kind: 'number', min: 0, unit: MS, nullMeans: 'never' },
    flag: {
      name: 'allowance-window',
      variable: 'SANDBOX_ALLOWANCE_WINDOW',
      placeholder: 'S',
      unit: { name: 'seconds', toKnob: 1000 },
    },
  },
  // Sent as Retry-After, whose delta-seconds are a whole number.
  { knob: 'retryAfterSeconds', rule: { kind: 'number', whole: true, min: 0, unit: 'seconds' } },
];

/** Every knob's name, as configure takes them. */
export const KNOB_NAMES: readonly string[] = [...KNOB_RULES.map((r) => r.knob), 'misbehave'];

export type Checked<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly message: string };

/** How a value reached a rule: the name the user gave it, and what that way can say. */
export interface Given {
  /** `--fault-rate`, `SANDBOX_FAULT_RATE` or `faultRate`. */
  readonly name: string;
  /** The value as the user wrote it, when not the value itself (a flag's text). */
  readonly shown?: string;
  /** The unit of a flag that counts in another one than its knob (seconds). */
  readonly unit?: string;
  /** Whether null can be given this way (JSON and code; not a flag's text). */
  readonly nullable: boolean;
}

/** A knob's value as configure and code give it (a number, a word, true or false), checked by its rule. */
export function checkKnob(
  rule: KnobRule['rule'],
  value: unknown,
  given: Given,
): Checked<number | null | string | boolean> {
  if (rule.kind === 'number') return checkNumber(rule, value, given);
  const words = rule.kind === 'choice' ? choiceWords(rule) : 'true or false';
  const fits =
    rule.kind === 'choice'
      ? typeof value === 'string' && rule.choices.includes(value)
      : typeof value === 'boolean';
  if (fits) return { ok: true, value: value as string | boolean };
  return { ok: false, message: `${given.name} takes ${words}; got ${given.shown ?? show(value)}` };
}

/** A choice's words: `"queue" or "503"`. */
export function choiceWords(rule: ChoiceRule): string {
  const quoted = rule.choices.map((c) => JSON.stringify(c));
  return `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

/** A number knob's value checked against its rule: the number, null where the knob takes it, or a message. */
export function checkNumber(rule: NumberRule, value: unknown, given: Given): Checked<number | null> {
  const words = ruleWords(rule, given.unit ?? rule.unit, given.nullable);
  const refused = {
    ok: false,
    message: `${given.name} takes ${words}; got ${given.shown ?? show(value)}`,
  } as const;
  if (value === null) return rule.nullMeans === undefined ? refused : { ok: true, value: null };
  if (typeof value !== 'number' || Number.isNaN(value)) return refused;
  if (value === Number.POSITIVE_INFINITY && rule.nullMeans !== undefined && !rule.finite) {
    return { ok: true, value };
  }
  const inRange = value >= rule.min && (rule.max === undefined || value <= rule.max);
  if (!Number.isFinite(value) || !inRange || (rule.whole && !Number.isInteger(value))) return refused;
  return { ok: true, value };
}

/** misbehave's value checked: a mode, modes separated by commas, or an array of modes. */
export function checkMisbehave(name: string, value: unknown): Checked<readonly MisbehaveMode[]> {
  const isList = Array.isArray(value) && value.every((item) => typeof item === 'string');
  if (typeof value !== 'string' && !isList) {
    return {
      ok: false,
      message: `${name} takes a mode, modes separated by commas, or an array of modes ([] for none); got ${show(value)}`,
    };
  }
  const parsed = parseMisbehave(value as string | string[]);
  return parsed.ok ? { ok: true, value: parsed.modes } : { ok: false, message: `${name}: ${parsed.message}` };
}

/** "a whole number of milliseconds from 0 to 3600000 (an hour), or null for no limit". */
function ruleWords(rule: NumberRule, unit: string | undefined, nullable: boolean): string {
  let words = `a ${rule.whole ? 'whole number' : 'number'}${unit ? ` of ${unit}` : ''}`;
  if (rule.max !== undefined) {
    words += ` from ${rule.min} to ${rule.max}${rule.maxWords ? ` (${rule.maxWords})` : ''}`;
  } else {
    words += `, at least ${rule.min}`;
  }
  if (rule.nullMeans !== undefined && nullable) words += `, or null for ${rule.nullMeans}`;
  return words;
}

/** A value as a message shows it: JSON, cut short (a body may hold anything). */
function show(value: unknown): string {
  // String(): JSON writes Infinity as null.
  const text =
    typeof value === 'number' || value === undefined
      ? String(value)
      : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
