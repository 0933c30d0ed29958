// The command's flags and environment variables, read into the server's options or refused with one
// line naming the flag (or the variable) and its rule. Each knob's flag is checked by the knob's
// rule in knob-rules.ts, the one configure and code use; the server's own flags (port, host, https,
// keys, seed) have theirs here. A flag's value is the argument after it whatever it starts with, so
// `--latency -5` is refused by --latency's rule (node:util's parseArgs called it "ambiguous" and
// threw, and the command ended in a stack trace). A switch knob's flag takes no value and sets the
// knob one way (`--rate-headers` on, `--no-rate-retry-after` off); its variable holds the knob's
// value, 1 or 0, so that either setting can come from the environment.
import {
  type Checked,
  checkKnob,
  checkMisbehave,
  checkNumber,
  KNOB_RULES,
  type NumberRule,
  type SwitchFlag,
} from './knob-rules.js';
import { changedKnobs, initialKnobs, type SandboxKnobs } from './knobs.js';
import type { ServerOptions } from './server.js';

/** A flag of the command: its name (without --), its environment variable, its value's placeholder. */
export interface CommandFlag {
  readonly flag: string;
  readonly variable?: string;
  /** "MS": what --help and the README write after the flag; none for a switch. */
  readonly value?: string;
}

const KNOB_FLAGS: readonly CommandFlag[] = KNOB_RULES.flatMap(({ flag }) => {
  if (flag === undefined) return [];
  return 'sets' in flag
    ? [{ flag: flag.name, variable: flag.variable }]
    : [{ flag: flag.name, variable: flag.variable, value: flag.placeholder }];
});

/** Every flag the command takes, with its environment variable: README's Options table lists them. */
export const COMMAND_FLAGS: readonly CommandFlag[] = [
  { flag: 'port', variable: 'SANDBOX_PORT', value: 'N' },
  { flag: 'host', variable: 'SANDBOX_HOST', value: 'H' },
  { flag: 'https', variable: 'SANDBOX_HTTPS' },
  { flag: 'keys', variable: 'SANDBOX_KEYS', value: 'K1,K2' },
  ...KNOB_FLAGS,
  { flag: 'seed', variable: 'SANDBOX_SEED', value: 'S' },
  { flag: 'misbehave', variable: 'SANDBOX_MISBEHAVE', value: 'M1,M2' },
  { flag: 'help' },
];

/** A TCP port; 0 asks the system for a free one. */
const PORT_RULE: NumberRule = { kind: 'number', whole: true, min: 0, max: 65535 };

export type CommandRead =
  | { readonly ok: true; readonly help: boolean; readonly options: ServerOptions }
  | { readonly ok: false; readonly message: string };

/** A flag's text, from the flag or else its variable, with the name the user gave it. */
type Text = { readonly text: string; readonly name: string };
type TextOf = (flag: string) => Text | undefined;
/** A switch's value, from its flag or else its variable (1 or 0), with the name the user gave it; or why not. */
type SwitchOf = (flag: SwitchFlag) => Checked<{ readonly value: boolean; readonly name: string } | undefined>;

/** Reads the command line and the environment into the server's options, or says what is wrong. */
export function readCommand(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): CommandRead {
  const flags = flagValues(argv);
  if (!flags.ok) return flags;
  if (flags.values.has('help')) return { ok: true, help: true, options: {} };
  // The flag wins over its variable; an empty variable is as good as unset.
  const textOf: TextOf = (name) => {
    const given = flags.values.get(name);
    if (typeof given === 'string') return { text: given, name: `--${name}` };
    const variable = COMMAND_FLAGS.find((f) => f.flag === name)?.variable;
    const fromEnv = variable === undefined ? undefined : env[variable];
    return variable !== undefined && fromEnv ? { text: fromEnv, name: variable } : undefined;
  };
  const switchOf: SwitchOf = (flag) => {
    if (flags.values.has(flag.name)) return { ok: true, value: { value: flag.sets, name: `--${flag.name}` } };
    const text = env[flag.variable];
    if (!text) return { ok: true, value: undefined };
    if (text !== '1' && text !== '0') {
      return { ok: false, message: `${flag.variable} takes 1 (on) or 0 (off); got ${JSON.stringify(text)}` };
    }
    return { ok: true, value: { value: text === '1', name: flag.variable } };
  };
  const knobs = knobOptions(textOf, switchOf);
  if (!knobs.ok) return knobs;
  const port = textOf('port');
  const portNumber = port === undefined ? { ok: true as const, value: 8787 } : numberFlag(PORT_RULE, port);
  if (!portNumber.ok) return portNumber;
  const keys = textOf('keys');
  const keyList = (keys?.text ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  if (keys !== undefined && keyList.length === 0) {
    return {
      ok: false,
      message: `${keys.name} takes one or more keys separated by commas; got ${JSON.stringify(keys.text)}`,
    };
  }
  return {
    ok: true,
    help: false,
    options: {
      ...knobs.value,
      port: portNumber.value as number,
      host: textOf('host')?.text ?? '127.0.0.1',
      https: flags.values.has('https') || env.SANDBOX_HTTPS === '1',
      ...(keyList.length > 0 ? { keys: keyList } : {}),
      seed: textOf('seed')?.text,
    },
  };
}

/** The knobs the flags and variables set, each checked by its rule, then the rules that tie two. */
function knobOptions(textOf: TextOf, switchOf: SwitchOf): Checked<Partial<SandboxKnobs>> {
  const knobs: Record<string, unknown> = {};
  const names = new Map<keyof SandboxKnobs, string>();
  for (const { knob, rule, flag } of KNOB_RULES) {
    if (flag === undefined) continue;
    if ('sets' in flag) {
      const given = switchOf(flag);
      if (!given.ok) return given;
      if (given.value === undefined) continue;
      knobs[knob] = given.value.value;
      names.set(knob, given.value.name);
      continue;
    }
    const given = textOf(flag.name);
    if (given === undefined) continue;
    names.set(knob, given.name);
    if (rule.kind === 'choice') {
      const checked = checkKnob(rule, given.text, {
        name: given.name,
        shown: JSON.stringify(given.text),
        nullable: false,
      });
      if (!checked.ok) return checked;
      knobs[knob] = checked.value;
      continue;
    }
    if (rule.kind !== 'number') continue;
    // A flag in another unit is checked in its own (its bounds scaled), then converted.
    const scale = flag.unit?.toKnob ?? 1;
    const max = rule.max === undefined ? undefined : rule.max / scale;
    const checked = numberFlag({ ...rule, min: rule.min / scale, max }, given, flag.unit?.name);
    if (!checked.ok) return checked;
    knobs[knob] = (checked.value as number) * scale;
  }
  const misbehave = textOf('misbehave');
  if (misbehave !== undefined) {
    const modes = checkMisbehave(misbehave.name, misbehave.text);
    if (!modes.ok) return modes;
    knobs.misbehave = modes.value;
  }
  // A p99 above its median, named as the user named them (a knob not set by its flag's name).
  const tied = changedKnobs(initialKnobs({}), knobs, (knob) => names.get(knob) ?? `--${flagOf(knob)}`);
  return tied.ok ? { ok: true, value: knobs as Partial<SandboxKnobs> } : tied;
}

/** A number flag checked by its rule, its text shown as given. */
function numberFlag(rule: NumberRule, given: Text, unit?: string): Checked<number | null> {
  return checkNumber(rule, numberOf(given.text), {
    name: given.name,
    shown: JSON.stringify(given.text),
    unit,
    nullable: false,
  });
}

/** The command's flag of a knob, for a message about a knob the user did not set. */
function flagOf(knob: keyof SandboxKnobs): string {
  return KNOB_RULES.find((r) => r.knob === knob)?.flag?.name ?? knob;
}

/** A flag's text as a number; NaN for a blank (Number('') is 0). */
function numberOf(text: string): number {
  return text.trim() === '' ? Number.NaN : Number(text);
}

type FlagValues = { ok: true; values: Map<string, string | true> } | { ok: false; message: string };

/** `--name value`, `--name=value`, the switches `--https` and `--help` (`-h`); the last of a flag wins. */
function flagValues(argv: readonly string[]): FlagValues {
  const values = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '-h') {
      values.set('help', true);
      continue;
    }
    if (!arg.startsWith('--'))
      return { ok: false, message: `unexpected argument ${JSON.stringify(arg)} (see --help)` };
    const equals = arg.indexOf('=');
    const name = arg.slice(2, equals < 0 ? undefined : equals);
    const inline = equals < 0 ? undefined : arg.slice(equals + 1);
    const flag = COMMAND_FLAGS.find((f) => f.flag === name);
    if (flag === undefined) return { ok: false, message: `unknown option --${name} (see --help)` };
    if (flag.value === undefined) {
      if (inline !== undefined) return { ok: false, message: `--${name} takes no value` };
      values.set(name, true);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined)
      return { ok: false, message: `--${name} needs a value: --${name} ${flag.value}` };
    values.set(name, value);
  }
  return { ok: true, values };
}
