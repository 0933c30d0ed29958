// A thread that runs one execution of the script at a time for run-concurrently.ts, so that several
// executions can be suspended in the middle of their code, as Apps Script runs them: each service
// call is sent to the main thread, which holds the services, the stores and the clocks, and this
// thread waits (Atomics.wait) until the scheduler answers it. Only one thread runs at any moment,
// so runs are deterministic. Plain JavaScript: worker threads load no TypeScript.
//
// Messages, one at a time each way:
//   main → here:  {kind: 'run', code, cachedData?, fn, snippet?, args, services, now, seed, stryker?}, then
//                 replies to calls:
//                 {kind: 'return', value, now} | {kind: 'throw', message, now}, and {kind: 'exit'}
//   here → main:  {kind: 'ready'}, {kind: 'call', handle, method, args},
//                 {kind: 'done', value | error, strykerCoverage?}
// Under `pnpm mutate`, `stryker` says which mutant is on and which test runs; the execution's
// context gets a Stryker global of its own with them, and what it ran goes back with `done`
// (stryker-bridge.ts).
// Values cross as plain data; an object with methods crosses as {$handle, methods?, data?} and
// becomes an object of the script's realm whose methods call back to the main thread.
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { receiveMessageOnPort, workerData } from 'node:worker_threads';

const { port, signals } = workerData;
const flags = new Int32Array(signals);
const TO_MAIN = 0;
const TO_WORKER = 1;
const PAUSE = 2;
const scripts = new Map();

function post(message) {
  port.postMessage(message);
  Atomics.store(flags, TO_MAIN, 1);
  Atomics.notify(flags, TO_MAIN);
}

function take() {
  Atomics.wait(flags, TO_WORKER, 0);
  Atomics.store(flags, TO_WORKER, 0);
  // The message can reach this port a moment after the flag (script-threads.ts): look again.
  for (let tries = 0; ; tries++) {
    const received = receiveMessageOnPort(port);
    if (received) return received.message;
    if (tries > 1000) Atomics.wait(flags, PAUSE, 0, 1);
  }
}

function messageOf(error) {
  return error !== null && typeof error === 'object' && typeof error.message === 'string'
    ? error.message
    : String(error);
}

/** The same generator as vm-helpers.ts: Math.random repeats from run to run. */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function runExecution(start) {
  let script = scripts.get(start.code);
  if (!script) {
    // V8's code cache made by the main thread: each thread skips compiling the bundle again.
    script = new vm.Script(readFileSync(start.code, 'utf8'), {
      filename: 'Code.js',
      cachedData: start.cachedData ? Buffer.from(start.cachedData) : undefined,
    });
    scripts.set(start.code, script);
  }
  const context = vm.createContext({});
  const realm = vm.runInContext('({ Array: Array, Object: Object, Error: Error, Date: Date })', context);
  // The execution's clock: only service calls move it, and every reply says where it stands.
  let now = start.now;
  vm.compileFunction(
    `const D = Date;
     class VirtualDate extends D {
       constructor(...args) { if (args.length === 0) super(now()); else super(...args); }
       static now() { return now(); }
     }
     globalThis.Date = VirtualDate;
     Math.random = random;`,
    ['now', 'random'],
    { parsingContext: context },
  )(() => now, mulberry32(start.seed));

  const proxies = new Map();
  const handles = new WeakMap();
  const incoming = (value) => {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      const out = new realm.Array();
      for (const item of value) out.push(incoming(item));
      return out;
    }
    if (value instanceof Date) return new realm.Date(value.getTime());
    if ('$handle' in value) return proxyOf(value);
    const out = new realm.Object();
    for (const key of Object.keys(value)) out[key] = incoming(value[key]);
    return out;
  };
  const outgoing = (value) => {
    if (typeof value === 'function') throw new realm.Error('Invalid argument: a function');
    if (value === null || typeof value !== 'object') return value;
    const id = handles.get(value);
    if (id !== undefined) return { $handle: id };
    if (Array.isArray(value)) return Array.from(value, outgoing);
    if (Object.prototype.toString.call(value) === '[object Date]') return new Date(value.getTime());
    const out = {};
    for (const key of Object.keys(value)) out[key] = outgoing(value[key]);
    return out;
  };
  const call = (id, method, args) => {
    post({ kind: 'call', handle: id, method, args: outgoing(args) });
    const reply = take();
    now = reply.now;
    if (reply.kind === 'return') return incoming(reply.value);
    throw new realm.Error(reply.message);
  };
  const proxyOf = (handle) => {
    const id = handle.$handle;
    let proxy = proxies.get(id);
    if (proxy) return proxy;
    proxy = new realm.Object();
    for (const method of handle.methods ?? []) proxy[method] = (...args) => call(id, method, args);
    for (const [key, value] of Object.entries(handle.data ?? {})) proxy[key] = incoming(value);
    proxies.set(id, proxy);
    handles.set(proxy, id);
    return proxy;
  };

  for (const [name, service] of Object.entries(start.services)) context[name] = incoming(service);
  const stryker = start.stryker && { ...start.stryker };
  if (stryker) context.__stryker__ = stryker;
  const done = (result) =>
    stryker?.mutantCoverage ? { ...result, strykerCoverage: stryker.mutantCoverage } : result;
  try {
    script.runInContext(context);
    if (start.snippet !== undefined)
      return done({ kind: 'done', value: outgoing(vm.runInContext(start.snippet, context)) });
    const target = context[start.fn];
    if (typeof target !== 'function') throw new Error(`Script function not found: ${start.fn}`);
    return done({ kind: 'done', value: outgoing(target(...incoming(start.args))) });
  } catch (error) {
    return done({ kind: 'done', error: messageOf(error) });
  }
}

post({ kind: 'ready' });
for (;;) {
  const message = take();
  if (!message || message.kind === 'exit') break;
  try {
    post(runExecution(message));
  } catch (error) {
    post({ kind: 'done', error: `the test runtime's worker failed: ${messageOf(error)}` });
  }
}
port.close();
