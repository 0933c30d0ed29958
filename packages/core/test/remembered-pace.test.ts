// A run started from the pace the last run found (remembered-pace.ts), against simulated services on
// a simulated clock (pace-sim.ts): it loses nothing to the climb when the service is as it was, and
// comes down when the service can no longer take that pace (a capacity dropped, a bucket).
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_CONCURRENCY,
  INITIAL_CONCURRENCY,
  Pace,
  type PaceState,
  paceToRemember,
  type RememberedPace,
  rememberedState,
} from '../src/index.js';
import { rateBetween, type SimResult, simService, simulate } from './pace-sim.js';

/** The ideal time over the time taken. */
const ratio = (r: SimResult, requests: number, ceilingPerSecond: number) =>
  ((requests / ceilingPerSecond) * 1000) / r.endedAt;

const fromMemory = (remembered: RememberedPace) => new Pace({}, 0, rememberedState(remembered, 0));

describe('the same service as last time', () => {
  it('no limit at 800 ms: a short run starts at 64 in flight, where the first climbed from 8', () => {
    const model = { latencyMs: 800, jitter: 0.2 };
    // 13 round trips of 64: about 10 s.
    const first = simulate(simService(model), 832);
    const kept = paceToRemember(first.pace.snapshot(), undefined);
    expect(kept).toMatchObject({ concurrency: DEFAULT_MAX_CONCURRENCY, climbing: true });
    const second = simulate(simService(model), 832, {}, fromMemory(kept as RememberedPace));
    expect(second.trace[0]?.concurrency).toBe(DEFAULT_MAX_CONCURRENCY);
    expect(ratio(second, 832, DEFAULT_MAX_CONCURRENCY / 0.8)).toBeGreaterThanOrEqual(0.9);
    expect(ratio(first, 832, DEFAULT_MAX_CONCURRENCY / 0.8)).toBeLessThan(0.9);
  });

  it('a token bucket of 50/s: the next run is spaced by the rate found from its first request', () => {
    const model = { rate: 50, latencyMs: 300, jitter: 0.2 };
    const first = simulate(simService(model), 1500);
    const kept = paceToRemember(first.pace.snapshot(), undefined) as RememberedPace;
    expect(kept.ratePerSecond).toBeGreaterThan(40);
    expect(kept.climbing).toBe(false);
    const second = simulate(simService(model), 1500, {}, fromMemory(kept));
    expect(second.trace[0]?.rate).toBeCloseTo(kept.ratePerSecond as number, 6);
    // No burst to find the bucket with: fewer 429s than the run that found it.
    expect(second.throttled).toBeLessThanOrEqual(first.throttled);
    expect(second.throttled / second.attempts).toBeLessThanOrEqual(0.02);
    expect(ratio(second, 1500, 50)).toBeGreaterThanOrEqual(0.9);
  });
});

describe('a service that can no longer take the remembered pace', () => {
  it('a capacity dropped from none to 8 at 100 ms: cut within two round trips of a queued round, then down near 8', () => {
    const service = simService({ capacity: 8, latencyMs: 100, jitter: 0.2 });
    const r = simulate(service, 1600, {}, fromMemory({ concurrency: 64, baselineMs: 100, climbing: true }));
    const limitAt = (ms: number) => r.trace.filter((t) => t.at <= ms).at(-1)?.concurrency;
    // 64 behind 8 at once: the first round comes back over 0.8 s.
    expect(limitAt(2000)).toBeLessThan(DEFAULT_MAX_CONCURRENCY);
    expect(limitAt(6000)).toBeLessThanOrEqual(DEFAULT_MAX_CONCURRENCY / 2);
    expect(r.pace.concurrency).toBeLessThanOrEqual(3 * 8);
    // The service serves 80 a second whatever waits in its queue; the run keeps it busy.
    expect(rateBetween(r, 5000, 15_000)).toBeGreaterThanOrEqual(0.9 * 80);
  });

  it('without the remembered baseline the queued first round would pass for the service latency', () => {
    // What the baseline is kept for: the same start with the baseline unknown never sees the queue.
    const service = simService({ capacity: 8, latencyMs: 100, jitter: 0.2 });
    const state: PaceState = {
      ...rememberedState({ concurrency: 64, baselineMs: 100, climbing: true }, 0),
      baseline: undefined,
    };
    const r = simulate(service, 1600, {}, new Pace({}, 0, state));
    expect(r.pace.concurrency).toBeGreaterThan(3 * 8);
  });

  it('a bucket lowered to 20/s: the remembered rate of 50 is cut at the first 429s', () => {
    const r = simulate(
      simService({ rate: 20, latencyMs: 300, jitter: 0.2 }),
      600,
      {},
      fromMemory({ concurrency: 30, ratePerSecond: 50, baselineMs: 300, climbing: false }),
    );
    expect(r.pace.ratePerSecond).toBeLessThanOrEqual(22);
    expect(rateBetween(r, 10_000, 25_000)).toBeGreaterThanOrEqual(0.85 * 20);
  });
});

describe('what a run leaves for the next', () => {
  const state = (over: Partial<PaceState>): PaceState => ({
    ...rememberedState({ concurrency: INITIAL_CONCURRENCY, baselineMs: 100, climbing: true }, 0),
    ...over,
  });

  it('nothing when no round was judged (no baseline)', () => {
    expect(paceToRemember(state({ baseline: undefined }), undefined)).toBeUndefined();
  });

  it('the limit, baseline and rate it ended at, whole requests in flight', () => {
    expect(
      paceToRemember(state({ limit: 23.6, slowStart: false, rate: 41.5, baseline: 250 }), undefined),
    ).toEqual({ concurrency: 23, ratePerSecond: 41.5, baselineMs: 250, climbing: false });
  });

  it('a run still climbing below the pace kept before leaves that pace as it was; above it, its own', () => {
    const previous: RememberedPace = { concurrency: 64, baselineMs: 800, climbing: false };
    expect(paceToRemember(state({ limit: 20, slowStart: true }), previous)).toBe(previous);
    expect(paceToRemember(state({ limit: 20, slowStart: false }), previous)).toMatchObject({
      concurrency: 20,
    });
    expect(paceToRemember(state({ limit: 80, slowStart: true }), previous)).toMatchObject({
      concurrency: 80,
      climbing: true,
    });
  });
});
