// Executions that overlap in time, as Sheets runs many custom functions at once. Each runs in a
// thread of its own (script-threads.ts, execution-worker.mjs) and stops at every service call; this
// scheduler makes the call that comes first on the virtual clock, whichever execution makes it. So
// every call, however short, lets other executions in: between two cache calls of one execution,
// others may read and write the same cache (the platform promises nothing better). A call takes
// effect at its start (a request is counted by the service when it leaves, a cache write is seen
// at once) and its execution's clock moves on by the call's cost (a fetchAll by its slowest
// request); the execution then continues from where it is, never replayed.
//
// A busy lock: the execution waits until the lock is released (it then tries again at that moment)
// or its timeout comes (tryLock returns false). The 30-second limit: a call that would end past it
// stops the execution there, as Apps Script does; nothing of it runs further (its thread answers
// every later call with the same error and is drained, and its result is not used).
// Not modelled: CPU time of the script itself (only service calls and waits take time).
import { join } from 'node:path';
import vm from 'node:vm';
import {
  createRealm,
  Execution,
  exportValue,
  LockWait,
  type Mode,
  STARTUP_MS_PER_KB,
  TIMEOUT_MESSAGE,
  VirtualClock,
} from './execution.js';
import { executionGlobals } from './execution-globals.js';
import type { Runtime } from './index.js';
import { RemoteObjects } from './remote-objects.js';
import { type FromThread, returnThreads, type ScriptThread, takeThreads } from './script-threads.js';
import { addThreadCoverage, forThread } from './stryker-bridge.js';
import type { User } from './types.js';

export interface ConcurrentCall {
  readonly user: User;
  readonly mode: Mode;
  readonly fn: string;
  readonly args: readonly unknown[];
  /** Runs this code after loading the script instead of calling `fn`. */
  readonly snippet?: string;
  /** Starts this long after the others (ms), when it is among the first `concurrency` calls. */
  readonly startsAfterMs?: number;
}

type Result = { value: unknown } | { error: string };

/** One execution: where it stands (its next service call, or waiting for a lock), on its own clock. */
class Task {
  /** The call it is stopped at, or its end. */
  next: FromThread;
  /** The lock it waits for, and until when at most. */
  waiting: LockWait | null = null;
  /** When a waiting task goes on (the lock's release, or its timeout). */
  wakeAt = 0;

  constructor(
    readonly index: number,
    readonly call: ConcurrentCall,
    readonly exec: Execution,
    readonly remote: RemoteObjects,
    readonly thread: ScriptThread,
    first: FromThread,
  ) {
    this.next = first;
  }

  /** When its next step happens on the virtual clock. */
  due(): number {
    return this.waiting ? this.wakeAt : this.exec.clock.now();
  }
}

/**
 * Runs calls as executions that overlap in time (at most `concurrency` at once; Apps Script allows
 * 30 simultaneous executions per user), each on its own clock. The runtime's clock ends when the
 * last one ends. Returns each call's result or error message, in order.
 */
export function runConcurrently(rt: Runtime, calls: readonly ConcurrentCall[], concurrency = 30): Result[] {
  const t0 = rt.clock.now();
  const results: Result[] = [];
  const queue = calls.map((call, index) => ({ call, index }));
  const threads = takeThreads(Math.min(concurrency, calls.length));
  const free = [...threads];
  const realm = createRealm(vm.createContext({}));
  const running: Task[] = [];
  let end = t0;

  const start = (at: number) => {
    const next = queue.shift();
    const thread = free.pop();
    if (!next || !thread) return;
    const exec = new Execution(
      new VirtualClock(at + (next.call.startsAfterMs ?? 0)),
      next.call.mode,
      next.call.user,
      rt.limitFor(next.call.mode),
      realm,
    );
    exec.concurrent = true;
    exec.enter(rt.codeKb * STARTUP_MS_PER_KB);
    const remote = new RemoteObjects();
    const services = executionGlobals(rt, exec, realm, next.call.user, next.call.mode) as Record<
      string,
      unknown
    >;
    const code = join(rt.distDir, 'Code.js');
    const cachedData = thread.compiled.has(code) ? undefined : rt.codeCache();
    thread.compiled.add(code);
    const first = thread.exchange({
      kind: 'run',
      code,
      cachedData,
      fn: next.call.fn,
      snippet: next.call.snippet,
      args: remote.encode([...next.call.args]),
      services: remote.encode(services),
      now: exec.clock.now(),
      seed: Math.floor(rt.random() * 2 ** 31),
      stryker: forThread(),
    });
    running.push(new Task(next.index, next.call, exec, remote, thread, first));
  };

  const finish = (task: Task, failure: string | null, value: unknown) => {
    running.splice(running.indexOf(task), 1);
    const { exec } = task;
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
      calls: exec.calls,
    });
    if (failure !== null) rt.errors.push(failure);
    results[task.index] = failure !== null ? { error: failure } : { value: exportValue(value) };
    free.push(task.thread);
    start(ended);
  };

  let completed = false;
  try {
    for (let i = 0; i < concurrency; i++) start(t0);
    while (running.length > 0) {
      const task = running.reduce((a, b) =>
        b.due() < a.due() || (b.due() === a.due() && b.index < a.index) ? b : a,
      );
      const { exec } = task;
      if (task.waiting) {
        exec.clock.advance(Math.max(0, Math.min(task.wakeAt, exec.deadline) - exec.clock.now()));
        task.waiting = null;
      }
      const step = task.next;
      if (step.kind === 'done') {
        addThreadCoverage(step.strykerCoverage);
        finish(task, step.error ?? null, task.remote.decode(step.value));
      } else if (step.kind === 'call') {
        makeCall(rt, task, step, finish);
      } else throw new Error(`unexpected message from the runtime's thread: ${step.kind}`);
      wakeWaiters(rt, running, exec.clock.now());
    }
    completed = true;
  } finally {
    // Threads stopped in the middle of a script by a failure here are of no further use.
    if (completed) returnThreads(threads);
    else for (const thread of threads) thread.terminate();
  }
  rt.clock.advance(end - t0);
  return results;
}

/** Makes the service call the task is stopped at, at its time, and lets it run to its next step. */
function makeCall(
  rt: Runtime,
  task: Task,
  step: FromThread & { kind: 'call' },
  finish: (task: Task, failure: string | null, value: unknown) => void,
): void {
  const { exec } = task;
  let reply: { kind: 'return'; value: unknown } | { kind: 'throw'; message: string };
  rt.activeClock = exec.clock;
  try {
    reply = {
      kind: 'return',
      value: task.remote.encode(task.remote.call(step.handle, step.method, step.args)),
    };
  } catch (error) {
    if (error instanceof LockWait) {
      task.waiting = error;
      task.wakeAt = error.until;
      return;
    }
    reply = { kind: 'throw', message: messageOf(error) };
  } finally {
    rt.activeClock = null;
  }
  if (exec.killed) {
    // Stopped at its limit: nothing more of it runs. Its thread finishes the script without effect.
    stopThread(task.thread, exec);
    finish(task, TIMEOUT_MESSAGE, undefined);
    return;
  }
  task.next = task.thread.exchange({ ...reply, now: exec.clock.now() });
}

/**
 * A lock released: those waiting for it go on at that moment (the first in order takes it). Called
 * after every step; a lock still free later does not put off a wake already due.
 */
function wakeWaiters(rt: Runtime, running: readonly Task[], at: number): void {
  for (const task of running) {
    if (task.waiting && !rt.locks.has(task.waiting.lock)) {
      task.wakeAt = Math.min(task.wakeAt, Math.max(task.exec.clock.now(), at));
    }
  }
}

/** Answers every further call of a stopped execution with Apps Script's error until its script ends. */
function stopThread(thread: ScriptThread, exec: Execution): void {
  let step = thread.exchange({ kind: 'throw', message: TIMEOUT_MESSAGE, now: exec.clock.now() });
  while (step.kind === 'call')
    step = thread.exchange({ kind: 'throw', message: TIMEOUT_MESSAGE, now: exec.clock.now() });
}

function messageOf(error: unknown): string {
  return error !== null && typeof error === 'object' && typeof (error as Error).message === 'string'
    ? (error as Error).message
    : String(error);
}
