// A stand-in for Google Apps Script that runs the BUILT add-on (dist/Code.js): every execution gets
// a fresh node:vm context holding only what Apps Script provides (its services, faked here over an
// in-memory spreadsheet and the sandbox's in-process handler), a virtual clock, and the limits of
// its mode (custom function: 30 s, read-only, owner's properties; menu/sidebar: 6 min). Two users:
// the spreadsheet's owner and a collaborator, each with their own user properties.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { createSandbox, type Sandbox } from '@enrich/sandbox';
import {
  CUSTOM_FUNCTION_LIMIT_MS,
  createRealm,
  EXECUTION_LIMIT_MS,
  Execution,
  exportValue,
  type Mode,
  SIMPLE_TRIGGER_LIMIT_MS,
  STARTUP_MS_PER_KB,
  TIMEOUT_MESSAGE,
  VirtualClock,
} from './execution.js';
import { executionGlobals } from './execution-globals.js';
import { addOnFormulas, type FormulaCall } from './formula-cells.js';
import { type ConcurrentCall, runConcurrently } from './run-concurrently.js';
import { passArgument, passResult } from './script-run.js';
import { CacheStore, type DailyCounter, PropertyStore } from './services.js';
import type { UiLog } from './spreadsheet-app.js';
import { type Cell, parseA1, type SheetModel, SpreadsheetModel, type Value } from './spreadsheet-model.js';
import { shareWithContext } from './stryker-bridge.js';
import { fireChange, passTime } from './trigger-firing.js';
import { type TriggerRun, TriggerStore } from './triggers.js';
import { AppsScriptError, type ExecutionRecord, type RuntimeOptions, type User } from './types.js';
import type { RecordedRequest } from './url-fetch.js';
import { installTime, mapGet, mulberry32 } from './vm-helpers.js';

export const DIST = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist');

export { AppsScriptError, type ExecutionRecord, type RuntimeOptions, type User } from './types.js';

export class Runtime {
  readonly clock = new VirtualClock();
  readonly sandbox: Sandbox;
  readonly owner: User = { email: 'owner@example.com' };
  readonly collaborator: User = { email: 'collaborator@example.com' };
  readonly spreadsheet: SpreadsheetModel;
  readonly ui: UiLog = { menus: [], sidebars: [], dialogs: [], alerts: [] };
  readonly http: RecordedRequest[] = [];
  /** Logger and console output. */
  readonly logs: string[] = [];
  /** Every error message an execution ended with (what cells, toasts and the sidebar show). */
  readonly errors: string[] = [];
  /** Everything google.script.run carried to the browser, serialised. */
  readonly browserTraffic: string[] = [];
  readonly executions: ExecutionRecord[] = [];
  readonly documentProperties = new PropertyStore('document');
  readonly scriptProperties: PropertyStore;
  readonly documentCache = new CacheStore('document');
  readonly scriptCache: CacheStore;
  readonly allowList: readonly string[];
  /** The manifest's oauthScopes (ScriptApp needs script.scriptapp). */
  readonly scopes: readonly string[];
  /** Installable triggers, their runs and each user's trigger runtime today (triggers.ts). */
  readonly triggers = new TriggerStore();
  extraLatencyMs: number;
  /**
   * Whether a time-driven trigger of the add-on runs in the document it was created in (unknown:
   * README, "Platform facts"). Set false to run them outside any document.
   */
  timeTriggersHaveDocument = true;
  /** Overrides the time limit of the next executions (to simulate a chunk cut short), when set. */
  limitOverrideMs: number | null = null;
  /** Failures to inject into the next call of a Spreadsheet method, by method name. */
  readonly faults = new Map<string, string>();
  /**
   * Whether simple triggers (LIMITED) may write the document. Google documents that they may modify
   * the file they are bound to; set false to test the add-on where the platform refuses.
   */
  limitedMayWrite = true;
  /** When true, every tryLock fails at once: the add-on's fallback where LockService does not help. */
  locksRefused = false;
  /** The clock of the execution making a service call, while executions run at the same time. */
  activeClock: VirtualClock | null = null;

  // Shared with execution-globals.ts and run-concurrently.ts, which build and run executions.
  readonly script: vm.Script;
  readonly codeKb: number;
  readonly distDir: string;
  private readonly userProps: Map<string, PropertyStore>;
  private readonly userCaches: Map<string, CacheStore>;
  readonly fetchCounters = new Map<string, DailyCounter>();
  readonly propertyCounters = new Map<string, DailyCounter>();
  readonly locks = new Map<string, Execution>();
  readonly random: () => number;
  globalNames: string[] = [];

  /** `sameScript`: the runtime of another spreadsheet the add-on runs in (inAnotherSpreadsheet). */
  constructor(options: RuntimeOptions = {}, sameScript?: Runtime) {
    this.spreadsheet = new SpreadsheetModel(options.spreadsheetId ?? '1SpreadsheetTestId', 'Contacts');
    // Apps Script keeps user and script properties and caches per script, not per document.
    this.userProps = sameScript?.userProps ?? new Map();
    this.userCaches = sameScript?.userCaches ?? new Map();
    this.scriptProperties = sameScript?.scriptProperties ?? new PropertyStore('script');
    this.scriptCache = sameScript?.scriptCache ?? new CacheStore('script');
    this.distDir = options.distDir ?? DIST;
    const code = readFileSync(join(this.distDir, 'Code.js'), 'utf8');
    this.codeKb = Buffer.byteLength(code) / 1024;
    this.script = new vm.Script(code, { filename: 'Code.js' });
    const manifest = JSON.parse(readFileSync(join(this.distDir, 'appsscript.json'), 'utf8')) as {
      urlFetchWhitelist?: string[];
      oauthScopes?: string[];
    };
    this.allowList = manifest.urlFetchWhitelist ?? [];
    this.scopes = manifest.oauthScopes ?? [];
    // The service sees each request at the time of the execution that sends it (executions running
    // at the same time each have their own clock).
    this.sandbox = createSandbox({ ...options.sandbox, now: () => (this.activeClock ?? this.clock).now() });
    this.extraLatencyMs = options.extraLatencyMs ?? 0;
    this.random = mulberry32(options.seed ?? 42);
    // The script's top-level functions, as Apps Script lists them (loading it calls no service).
    const probe = vm.createContext({});
    this.script.runInContext(probe);
    this.globalNames = Object.keys(probe).filter((k) => typeof probe[k] === 'function');
  }

  private cachedCode: Uint8Array | null = null;

  /** V8's code cache of the script, for the threads of executions that run at the same time. */
  codeCache(): Uint8Array {
    this.cachedCode ??= this.script.createCachedData();
    return this.cachedCode;
  }

  /**
   * The add-on in another spreadsheet, opened by the same users: its own document, document
   * properties, cache and lock, clock and sandbox; the same user and script properties and caches.
   */
  inAnotherSpreadsheet(options: RuntimeOptions & { readonly spreadsheetId: string }): Runtime {
    return new Runtime(options, this);
  }

  userProperties(user: User): PropertyStore {
    return mapGet(this.userProps, user.email, () => new PropertyStore(`user:${user.email}`));
  }

  userCache(user: User): CacheStore {
    return mapGet(this.userCaches, user.email, () => new CacheStore(`user:${user.email}`));
  }

  /** Runs a server function as a menu item, trigger or script.run call does: full authorisation, 6 minutes. */
  run(user: User, fn: string, ...args: unknown[]): unknown {
    return this.execute(user, 'full', fn, args);
  }

  /**
   * onOpen as Sheets calls it: NONE before the add-on is used in the document (only menus), LIMITED
   * once it is (a simple trigger: the document and services without authorisation, 30 s).
   */
  open(user: User, authMode: 'NONE' | 'LIMITED' | 'FULL' = 'NONE'): void {
    const mode = authMode === 'NONE' ? 'none' : authMode === 'LIMITED' ? 'limited' : 'full';
    this.execute(user, mode, 'onOpen', [{ authMode }]);
  }

  /** The onEdit simple trigger after a person's edit (LIMITED once the add-on is used in the document). */
  edit(user: User, authMode: 'NONE' | 'LIMITED' = 'LIMITED'): void {
    this.execute(user, authMode === 'NONE' ? 'none' : 'limited', 'onEdit', [{ authMode }]);
  }

  /** A custom function call from a cell: anonymous, read-only, 30 s, the owner's user properties. */
  customFunction(user: User, name: string, ...args: unknown[]): unknown {
    return this.execute(user, 'custom', name, args);
  }

  /** google.script.run from the sidebar of `user`: its argument and result rules applied. */
  scriptRun(user: User, fn: string, ...args: unknown[]): unknown {
    if (fn.endsWith('_')) throw new AppsScriptError(`Script function not found: ${fn}`, fn);
    const passed = args.map((a, i) => passArgument(a, String(i)));
    const result = passResult(this.execute(user, 'full', fn, passed));
    this.browserTraffic.push(JSON.stringify(result) ?? 'null');
    return result;
  }

  /** The HTML of the sidebar last shown to `user` (what the browser receives). */
  lastSidebar(user: User): string | undefined {
    return [...this.ui.sidebars].reverse().find((s) => s.user === user.email)?.html;
  }

  // Spreadsheet helpers for tests: what a person does in the grid (not counted as script writes).

  sheet(name = 'Sheet1'): SheetModel {
    return this.spreadsheet.sheet(name);
  }

  type(sheetName: string, a1: string, values: readonly (readonly Value[])[]): void {
    const sheet = this.sheet(sheetName);
    const box = parseA1(a1, sheet.maxRows);
    values.forEach((line, r) => {
      line.forEach((value, c) => {
        sheet.type(box.row + r, box.column + c, value);
      });
    });
  }

  values(sheetName: string, a1: string): Value[][] {
    const sheet = this.sheet(sheetName);
    const box = parseA1(a1, sheet.maxRows);
    return Array.from({ length: box.numRows }, (_, r) =>
      Array.from({ length: box.numColumns }, (_, c) => sheet.value(box.row + r, box.column + c)),
    );
  }

  cell(sheetName: string, a1: string): Cell | undefined {
    const sheet = this.sheet(sheetName);
    const box = parseA1(a1, sheet.maxRows);
    return sheet.cell(box.row, box.column);
  }

  select(sheetName: string, a1: string): void {
    this.spreadsheet.select(sheetName, a1);
  }

  /**
   * Recalculates every formula of the add-on's functions, each as its own custom-function execution,
   * as Sheets does when a referenced cell changes or the document is reopened.
   */
  recalculate(user: User = this.owner): { formulas: number; errors: string[] } {
    const errors: string[] = [];
    const calls = addOnFormulas(this.spreadsheet, this.globalNames);
    for (const { sheet, row, column, fn, args } of calls) {
      try {
        if (!Array.isArray(args)) throw new Error(args.error);
        sheet.placeResult(row, column, { value: this.customFunction(user, fn, ...args) });
      } catch (error) {
        const message = (error as Error).message;
        errors.push(message);
        sheet.placeResult(row, column, { error: message });
      }
    }
    return { formulas: calls.length, errors };
  }

  /**
   * Lets `ms` of time pass, running every time-driven trigger that falls due meanwhile, in time
   * order, each as the user who created it (trigger-firing.ts). Returns the runs.
   */
  passTime(ms: number): TriggerRun[] {
    return passTime(this, ms);
  }

  /** A person's change to the document: each installable change trigger of it runs, as its creator. */
  change(changeType = 'EDIT'): TriggerRun[] {
    return fireChange(this, changeType);
  }

  /**
   * One run of a trigger's function as `user` (full authorisation), stopped at `limitMs` with
   * `limitMessage` (6 minutes, or what is left of the day's trigger runtime). Throws as run() does.
   */
  runTrigger(
    user: User,
    fn: string,
    event: unknown,
    limitMs: number,
    limitMessage: string,
    noDocument = false,
  ): unknown {
    return this.executeWith(
      user,
      'full',
      fn,
      (context, realm) => {
        const target = context[fn];
        if (typeof target !== 'function') throw new Error(`Script function not found: ${fn}`);
        return (target as (e: unknown) => unknown)(realm.importValue(event));
      },
      { ms: limitMs, message: limitMessage, noDocument },
    );
  }

  /** A fresh context as executions get one, for tests of what it holds. */
  evaluateInFreshContext(code: string): unknown {
    const context = this.newContext(this.owner, 'full').context;
    return exportValue(vm.runInContext(code, context));
  }

  private newContext(user: User, mode: Mode, limit?: { ms: number; message: string; noDocument?: boolean }) {
    const context = vm.createContext({});
    const realm = createRealm(context);
    const exec = new Execution(
      this.clock,
      mode,
      user,
      limit?.ms ?? this.limitFor(mode),
      realm,
      limit?.message ?? TIMEOUT_MESSAGE,
    );
    exec.noDocument = limit?.noDocument ?? false;
    installTime(
      context,
      () => this.clock.now(),
      () => this.random(),
    );
    Object.assign(context, executionGlobals(this, exec, realm, user, mode));
    shareWithContext(context);
    return { context, realm, exec };
  }

  limitFor(mode: Mode): number {
    return (
      this.limitOverrideMs ??
      (mode === 'custom'
        ? CUSTOM_FUNCTION_LIMIT_MS
        : mode === 'limited'
          ? SIMPLE_TRIGGER_LIMIT_MS
          : EXECUTION_LIMIT_MS)
    );
  }

  /**
   * Runs calls as executions that overlap in time (at most `concurrency` at once; Apps Script allows
   * 30 simultaneous executions per user), each on its own clock, interleaved at every service call
   * (run-concurrently.ts). Returns each call's result or error message, in order.
   */
  runConcurrently(
    calls: readonly ConcurrentCall[],
    concurrency = 30,
  ): ({ value: unknown } | { error: string })[] {
    return runConcurrently(this, calls, concurrency);
  }

  /**
   * Recalculates every add-on formula as Sheets does with many single-cell formulas: each its own
   * execution, up to `concurrency` at the same time.
   */
  recalculateConcurrently(user: User = this.owner, concurrency = 30): { formulas: number; errors: string[] } {
    const calls = addOnFormulas(this.spreadsheet, this.globalNames);
    const readable = calls.filter((c): c is FormulaCall & { args: unknown[] } => Array.isArray(c.args));
    const results = this.runConcurrently(
      readable.map((c) => ({ user, mode: 'custom' as Mode, fn: c.fn, args: c.args })),
      concurrency,
    );
    const errors: string[] = [];
    for (const call of calls) {
      const result = Array.isArray(call.args)
        ? (results[readable.indexOf(call as FormulaCall & { args: unknown[] })] as (typeof results)[number])
        : { error: (call.args as { error: string }).error };
      if ('error' in result) {
        errors.push(result.error);
        call.sheet.placeResult(call.row, call.column, { error: result.error });
      } else call.sheet.placeResult(call.row, call.column, { value: result.value });
    }
    return { formulas: calls.length, errors };
  }

  private execute(user: User, mode: Mode, fn: string, args: readonly unknown[]): unknown {
    return this.executeWith(user, mode, fn, (context, realm) => {
      const target = context[fn];
      if (typeof target !== 'function') throw new Error(`Script function not found: ${fn}`);
      return (target as (...a: unknown[]) => unknown)(...(realm.importValue([...args]) as unknown[]));
    });
  }

  /**
   * Runs a snippet as one execution of the script (after its files are loaded), for tests of the
   * platform rules themselves: `rt.evaluate(rt.owner, 'custom', 'Utilities.sleep(31000)')`.
   */
  evaluate(user: User, mode: Mode, code: string): unknown {
    return this.executeWith(user, mode, '(snippet)', (context) => vm.runInContext(code, context));
  }

  private executeWith(
    user: User,
    mode: Mode,
    fn: string,
    body: (context: vm.Context, realm: ReturnType<typeof createRealm>) => unknown,
    limit?: { ms: number; message: string; noDocument?: boolean },
  ): unknown {
    const { context, realm, exec } = this.newContext(user, mode, limit);
    let result: unknown;
    let failure: string | null = null;
    try {
      exec.enter(this.codeKb * STARTUP_MS_PER_KB);
      this.script.runInContext(context);
      result = body(context, realm);
    } catch (error) {
      failure =
        error !== null && typeof error === 'object' && typeof (error as Error).message === 'string'
          ? (error as Error).message
          : String(error);
    }
    // The platform stops a script at its time limit whatever the script does about the exception.
    if (exec.killed) failure = exec.limitMessage;
    for (const name of exec.locks) if (this.locks.get(name) === exec) this.locks.delete(name);
    this.executions.push({
      fn,
      mode,
      user: user.email,
      started: exec.started,
      ended: this.clock.now(),
      error: failure,
      calls: exec.calls,
    });
    if (failure !== null) {
      this.errors.push(failure);
      throw new AppsScriptError(failure, fn);
    }
    return exportValue(result);
  }
}

export function createRuntime(options: RuntimeOptions = {}): Runtime {
  return new Runtime(options);
}
