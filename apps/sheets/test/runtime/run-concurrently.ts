// Executions that overlap in time (runtime/concurrent.ts explains how they are interleaved).
import vm from 'node:vm';
import { Journal, journaled, journaledNow } from './concurrent.js';
import {
  createRealm,
  Execution,
  exportValue,
  type Mode,
  STARTUP_MS_PER_KB,
  TIMEOUT_MESSAGE,
  VirtualClock,
} from './execution.js';
import { executionGlobals } from './execution-globals.js';
import type { Runtime } from './index.js';
import type { User } from './types.js';
import { installTime, mulberry32 } from './vm-helpers.js';

export interface ConcurrentCall {
  readonly user: User;
  readonly mode: Mode;
  readonly fn: string;
  readonly args: readonly unknown[];
}

/**
 * Runs calls as executions that overlap in time (at most `concurrency` at once; Apps Script allows
 * 30 simultaneous executions per user), each on its own clock, interleaved where they wait
 * (runtime/concurrent.ts). The runtime's clock ends when the last one ends. Returns each call's
 * result or error message, in order.
 */
export function runConcurrently(
  rt: Runtime,
  calls: readonly ConcurrentCall[],
  concurrency = 30,
): ({ value: unknown } | { error: string })[] {
  interface Task {
    readonly index: number;
    readonly call: (typeof calls)[number];
    readonly exec: Execution;
    readonly journal: Journal;
    readonly services: Record<string, unknown>;
    readonly first: vm.Context;
    readonly seed: number;
    attempts: number;
    wakeAt: number;
  }
  const t0 = rt.clock.now();
  const results: ({ value: unknown } | { error: string })[] = [];
  const queue = calls.map((call, index) => ({ call, index }));
  const running: Task[] = [];
  let end = t0;
  const startNext = (at: number) => {
    const next = queue.shift();
    if (!next) return;
    const first = vm.createContext({});
    const realm = createRealm(first);
    const exec = new Execution(
      new VirtualClock(at),
      next.call.mode,
      next.call.user,
      rt.limitFor(next.call.mode),
      realm,
    );
    exec.concurrent = true;
    const services = executionGlobals(rt, exec, realm, next.call.user, next.call.mode) as Record<
      string,
      unknown
    >;
    running.push({
      index: next.index,
      call: next.call,
      exec,
      journal: new Journal(),
      services,
      first,
      seed: Math.floor(rt.random() * 2 ** 31),
      attempts: 0,
      wakeAt: at,
    });
  };
  for (let i = 0; i < concurrency; i++) startNext(t0);
  while (running.length > 0) {
    running.sort((a, b) => a.wakeAt - b.wakeAt || a.index - b.index);
    const task = running[0] as Task;
    const { exec, journal } = task;
    if (exec.clock.now() < task.wakeAt) exec.clock.advance(task.wakeAt - exec.clock.now());
    const context = task.attempts === 0 ? task.first : vm.createContext({});
    const realm = task.attempts === 0 ? exec.realm : createRealm(context);
    journal.pos = 0;
    installTime(context, journaledNow(journal, exec.clock), mulberry32(task.seed));
    for (const [name, service] of Object.entries(task.services)) {
      context[name] =
        name === 'Logger' || name === 'console' || name === 'ScriptApp'
          ? service
          : journaled(journal, exec.clock, service, name);
    }
    let value: unknown;
    let failure: string | null = null;
    try {
      if (task.attempts === 0) exec.enter(rt.codeKb * STARTUP_MS_PER_KB);
      task.attempts++;
      rt.script.runInContext(context);
      const target = context[task.call.fn];
      if (typeof target !== 'function') throw new Error(`Script function not found: ${task.call.fn}`);
      value = (target as (...a: unknown[]) => unknown)(
        ...(realm.importValue([...task.call.args]) as unknown[]),
      );
    } catch (error) {
      failure =
        error !== null && typeof error === 'object' && typeof (error as Error).message === 'string'
          ? (error as Error).message
          : String(error);
    }
    if (journal.diverged !== null) throw new Error(`${task.call.fn}: ${journal.diverged}`);
    if (journal.pausedUntil !== null && !exec.killed) {
      task.wakeAt = journal.pausedUntil;
      journal.pausedUntil = null;
      continue;
    }
    running.shift();
    if (exec.killed) failure = TIMEOUT_MESSAGE;
    for (const name of exec.locks) if (rt.locks.get(name) === exec) rt.locks.delete(name);
    const ended = exec.clock.now();
    end = Math.max(end, ended);
    rt.executions.push({
      fn: task.call.fn,
      mode: task.call.mode,
      user: task.call.user.email,
      started: exec.started,
      ended,
      error: failure,
    });
    if (failure !== null) rt.errors.push(failure);
    results[task.index] = failure !== null ? { error: failure } : { value: exportValue(value) };
    startNext(ended);
  }
  rt.clock.advance(end - t0);
  return results;
}
