// One execution of the script, as Apps Script runs it: a fresh global scope, an authorisation mode,
// an active user and a time limit on a virtual clock. Services call `enter` before doing anything,
// which enforces the mode's permissions and the deadline; time passes only through service costs,
// Utilities.sleep and fetch latency, so every run is deterministic.
import vm from 'node:vm';

/** full: menu, sidebar, installable triggers; limited: simple triggers (onOpen/onEdit) of an add-on used in the document. */
export type Mode = 'custom' | 'full' | 'none' | 'limited';

export const CUSTOM_FUNCTION_LIMIT_MS = 30_000;
/** Simple triggers stop after 30 seconds, like custom functions. */
export const SIMPLE_TRIGGER_LIMIT_MS = 30_000;
export const EXECUTION_LIMIT_MS = 6 * 60_000;
export const TIMEOUT_MESSAGE = 'Exceeded maximum execution time';

export class VirtualClock {
  private t: number;
  constructor(start = Date.UTC(2026, 10, 22, 9, 0, 0)) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    if (!(ms >= 0)) throw new Error(`the clock cannot go back (${ms})`);
    this.t += ms;
  }
}

/** A script-realm view of values: arrays, objects and errors made in the context's own realm. */
export interface Realm {
  readonly context: vm.Context;
  /** Copies plain data (arrays, objects, Dates) into the context's realm. */
  importValue<T>(value: T): T;
  /** An Error of the context's realm, as Apps Script throws. */
  error(message: string): Error;
}

export function createRealm(context: vm.Context): Realm {
  const make = vm.compileFunction(
    `return {
      importValue: function imp(v) {
        if (v === null || typeof v !== 'object') return v;
        if (Object.prototype.toString.call(v) === '[object Date]') return new Date(v.getTime());
        if (Array.isArray(v)) { var out = []; for (var i = 0; i < v.length; i++) out.push(imp(v[i])); return out; }
        if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return v;
        var o = {}; var keys = Object.keys(v); for (var j = 0; j < keys.length; j++) o[keys[j]] = imp(v[keys[j]]); return o;
      },
      error: function (message) { return new Error(message); }
    };`,
    [],
    { parsingContext: context },
  );
  const helpers = make() as { importValue: <T>(v: T) => T; error: (m: string) => Error };
  return { context, importValue: helpers.importValue, error: helpers.error };
}

/** Copies a value from the script's realm into Node's, so tests compare plain Node data. */
export function exportValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Object.prototype.toString.call(value) === '[object Date]') return new Date((value as Date).getTime());
  if (Array.isArray(value)) return value.map(exportValue);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = exportValue(v);
  return out;
}

export interface ExecutionUser {
  readonly email: string;
}

/**
 * Thrown by a busy tryLock in an execution that runs at the same time as others: the scheduler
 * (run-concurrently.ts) lets it wait until the lock is released or `until` (its timeout) comes,
 * then makes the same call again.
 */
export class LockWait {
  constructor(
    readonly lock: string,
    readonly until: number,
  ) {}
}

export class Execution {
  readonly started: number;
  readonly deadline: number;
  killed = false;
  /** Runs at the same time as other executions (run-concurrently.ts): a busy lock waits for them. */
  concurrent = false;
  /** When this execution first found the lock it wants busy, while it waits for it. */
  lockWaitStart: number | null = null;
  /** Locks held, released when the execution ends. */
  readonly locks = new Set<string>();
  /**
   * The cache and lock calls made, in order ("cache.getAll", "lock"): each takes its time on the
   * platform and holds others up, so a test of the work a formula does counts them.
   */
  readonly calls: string[] = [];
  /**
   * Runs outside any document (a time-driven trigger, if Apps Script gives an add-on's none): no
   * active spreadsheet, and the document's cache, properties and lock are null.
   */
  noDocument = false;

  constructor(
    readonly clock: VirtualClock,
    readonly mode: Mode,
    /** Who runs it; in a custom function, Apps Script runs anonymously with the owner's properties. */
    readonly user: ExecutionUser,
    readonly limitMs: number,
    readonly realm: Realm,
    /** What stops it at its limit: the time limit, or (a trigger) the day's trigger runtime running out. */
    readonly limitMessage = TIMEOUT_MESSAGE,
  ) {
    this.started = clock.now();
    this.deadline = this.started + limitMs;
  }

  /**
   * Called by every service method: checks the deadline, spends `costMs` of virtual time, and
   * kills the execution if that passes the deadline (the platform stops it; later calls fail too).
   */
  enter(cost = 0): void {
    if (this.killed) throw this.realm.error(this.limitMessage);
    const costMs = Math.ceil(cost);
    const remaining = this.deadline - this.clock.now();
    if (costMs > remaining) {
      this.clock.advance(Math.max(0, remaining));
      this.killed = true;
      throw this.realm.error(this.limitMessage);
    }
    this.clock.advance(costMs);
  }

  /** Throws Apps Script's permission error when the mode does not allow `what`. */
  allow(what: string, modes: { custom?: boolean; none?: boolean; limited?: boolean }): void {
    // LIMITED: what needs no authorisation (by default what a custom function or NONE may do), and
    // the current document; each service says where it differs.
    const limited = modes.limited ?? (modes.custom === true || modes.none === true);
    if (
      (this.mode === 'custom' && !modes.custom) ||
      (this.mode === 'none' && !modes.none) ||
      (this.mode === 'limited' && !limited)
    ) {
      throw this.realm.error(`You do not have permission to call ${what}`);
    }
  }
}

/** Start-up cost of loading the script, per KB of code (Apps Script parses every file each time). */
export const STARTUP_MS_PER_KB = 1;
