// The service behind the gateway, as a load model: how long each answer takes (a seeded draw from
// the latency distribution), whether it waits for one of `capacity` slots or, with `overload` at
// '503', is turned away at once when none is free, and whether it fails on
// purpose (the injected faults of `faultRate`). These are the parts that make the sandbox behave
// like a real service under load rather than an instant oracle, and each draws from its own seeded
// sequence, so they are kept together and reset together: the same requests give the same delays
// and the same faults on every run. All of it is computed from arrival times, never with timers.
import { createServiceQueue } from './capacity.js';
import type { SandboxKnobs } from './knobs.js';
import { drawLatency } from './latency.js';
import { type Random, seededRandom } from './random.js';

export interface ServiceModel {
  /** The delay of an answer from the service: its wait for a slot plus its service time (plus `extraMs`). */
  delay(arrival: number, extraMs?: number): number;
  /** Whether a request arriving now is turned away (503): every slot busy and `overload` is '503'. */
  overloaded(arrival: number): boolean;
  /** Whether this otherwise good request is to fail with an injected fault. */
  fault(): boolean;
  peakInService(): number;
  peakWaiting(): number;
  reset(): void;
}

export function createServiceModel(knobs: Readonly<SandboxKnobs>, seed: string): ServiceModel {
  let faults: Random = seededRandom(`${seed}|faults`);
  let latencies: Random = seededRandom(`${seed}|latency`);
  const queue = createServiceQueue();
  return {
    delay(arrival, extraMs = 0) {
      const serviceMs = drawLatency(knobs.latencyMs, knobs.latencyP99Ms, latencies.next) + extraMs;
      const { start } = queue.admit(arrival, serviceMs, knobs.capacity);
      return start - arrival + serviceMs;
    },
    overloaded: (arrival) => knobs.overload === '503' && queue.wouldWait(arrival, knobs.capacity),
    fault: () => knobs.faultRate > 0 && faults.next() < knobs.faultRate,
    peakInService: () => queue.peakInService(),
    peakWaiting: () => queue.peakWaiting(),
    reset() {
      faults = seededRandom(`${seed}|faults`);
      latencies = seededRandom(`${seed}|latency`);
      queue.reset();
    },
  };
}
