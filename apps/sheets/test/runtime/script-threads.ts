// The threads that run executions side by side (execution-worker.mjs), and the synchronous
// exchange with them: the main thread posts a message and sleeps on a shared flag until the thread
// answers, so that the scheduler (run-concurrently.ts) stays an ordinary synchronous loop. Threads
// are reused from one set of executions to the next; a few are kept, the rest leave.
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { Coverage } from './stryker-bridge.js';

const TO_MAIN = 0;
const TO_WORKER = 1;
/** Never set: waiting on it is a short sleep. */
const PAUSE = 2;
/** A thread that has not answered after this long has failed; the test says so instead of hanging. */
const ANSWER_TIMEOUT_MS = 120_000;
/** Threads kept for the next set of executions (Apps Script runs up to 30 at once per user). */
const KEPT = 32;

export type FromThread =
  | { readonly kind: 'ready' }
  | { readonly kind: 'call'; readonly handle: number; readonly method: string; readonly args: unknown[] }
  | {
      readonly kind: 'done';
      readonly value?: unknown;
      readonly error?: string;
      /** Under `pnpm mutate`: the mutants the execution ran (stryker-bridge.ts). */
      readonly strykerCoverage?: Coverage;
    };

export type ToThread =
  | {
      readonly kind: 'run';
      readonly code: string;
      /** V8's code cache of `code`, for a thread that has not compiled it yet. */
      readonly cachedData?: Uint8Array;
      readonly fn: string;
      /** Code to run once the script is loaded, instead of calling `fn` (tests of the platform's rules). */
      readonly snippet?: string;
      readonly args: unknown;
      readonly services: unknown;
      readonly now: number;
      readonly seed: number;
      /** Under `pnpm mutate`: the mutant on and the test running (stryker-bridge.ts). */
      readonly stryker?: { readonly activeMutant?: string; readonly currentTestId?: string };
    }
  | { readonly kind: 'return'; readonly value: unknown; readonly now: number }
  | { readonly kind: 'throw'; readonly message: string; readonly now: number }
  | { readonly kind: 'exit' };

export class ScriptThread {
  private readonly flags: Int32Array;
  private readonly port: MessagePort;
  private readonly worker: Worker;
  private started = false;
  /** Scripts this thread has compiled already. */
  readonly compiled = new Set<string>();

  constructor() {
    const signals = new SharedArrayBuffer(12);
    this.flags = new Int32Array(signals);
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(new URL('./execution-worker.mjs', import.meta.url), {
      workerData: { port: port2, signals },
      transferList: [port2],
    });
    this.worker.unref();
  }

  /** Posts a message to the thread and waits for its answer. */
  exchange(message: ToThread): FromThread {
    if (!this.started) {
      this.started = true;
      const ready = this.receive();
      if (ready.kind !== 'ready')
        throw new Error(`the runtime's thread did not start: ${JSON.stringify(ready)}`);
    }
    this.port.postMessage(message);
    Atomics.store(this.flags, TO_WORKER, 1);
    Atomics.notify(this.flags, TO_WORKER);
    return this.receive();
  }

  private receive(): FromThread {
    if (Atomics.wait(this.flags, TO_MAIN, 0, ANSWER_TIMEOUT_MS) === 'timed-out') {
      throw new Error(`the runtime's thread did not answer within ${ANSWER_TIMEOUT_MS} ms`);
    }
    Atomics.store(this.flags, TO_MAIN, 0);
    // The flag is set after the message is posted, but with many threads busy the message can reach
    // this port a moment later: look again at once, then a millisecond apart.
    for (let waited = 0; waited < ANSWER_TIMEOUT_MS + 1000; waited++) {
      const received = receiveMessageOnPort(this.port);
      if (received) return received.message as FromThread;
      if (waited > 1000) Atomics.wait(this.flags, PAUSE, 0, 1);
    }
    throw new Error("the runtime's thread signalled without a message");
  }

  /** Stops the thread wherever it is. */
  terminate(): void {
    void this.worker.terminate();
    this.port.close();
  }

  leave(): void {
    if (this.started) {
      this.port.postMessage({ kind: 'exit' } satisfies ToThread);
      Atomics.store(this.flags, TO_WORKER, 1);
      Atomics.notify(this.flags, TO_WORKER);
    } else void this.worker.terminate();
    this.port.close();
  }
}

const idle: ScriptThread[] = [];

/** `count` threads: idle ones first, the rest started now (they boot side by side). */
export function takeThreads(count: number): ScriptThread[] {
  const taken = idle.splice(0, count);
  while (taken.length < count) taken.push(new ScriptThread());
  return taken;
}

/** Threads back to the pool; past KEPT, they leave. */
export function returnThreads(threads: readonly ScriptThread[]): void {
  for (const thread of threads) {
    if (idle.length < KEPT) idle.push(thread);
    else thread.leave();
  }
}
