// The pace controller against simulated services on a simulated clock (pace-sim.ts): it finds the
// ceiling of a token bucket, of a capacity and of a slow service with no limit, sits under a bucket
// with few 429s, follows a limit halved or raised mid-run, backs off on 5xx, and stays out of the
// way when the user fixed the number.
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_CONCURRENCY, PACE_CHANGES, Pace } from '../src/index.js';
import { rateBetween, type SimResult, simService, simulate, simulateClients } from './pace-sim.js';

const share429 = (r: SimResult) => r.throttled / r.attempts;
/** The ideal time over the time taken. */
const ratio = (r: SimResult, requests: number, ceilingPerSecond: number) =>
  ((requests / ceilingPerSecond) * 1000) / r.endedAt;
const traceAfter = (r: SimResult, from: number) => r.trace.filter((t) => t.at >= from);

describe('finding the ceiling with nothing configured', () => {
  it('a token bucket of 50/s at 300 ms: at least 0.9 of it, under 2 % of requests answered 429', () => {
    const r = simulate(simService({ rate: 50, latencyMs: 300, jitter: 0.2 }), 1500);
    expect(ratio(r, 1500, 50)).toBeGreaterThanOrEqual(0.9);
    expect(share429(r)).toBeLessThanOrEqual(0.02);
    expect(rateBetween(r, 5000, 25_000)).toBeGreaterThanOrEqual(45);
    // Paced by a rate found near the bucket's, not by requests in flight.
    for (const t of traceAfter(r, 5000)) expect(t.rate).toBeGreaterThan(35);
  });

  it('the same with a fixed service time: answers come back in waves, the sends do not', () => {
    const r = simulate(simService({ rate: 50, latencyMs: 300 }), 1500);
    expect(ratio(r, 1500, 50)).toBeGreaterThanOrEqual(0.9);
    expect(share429(r)).toBeLessThanOrEqual(0.02);
  });

  it('a token bucket of 200/s at 100 ms', () => {
    const r = simulate(simService({ rate: 200, latencyMs: 100, jitter: 0.2 }), 6000);
    expect(ratio(r, 6000, 200)).toBeGreaterThanOrEqual(0.9);
    expect(share429(r)).toBeLessThanOrEqual(0.02);
  });

  it('a capacity of 16 at 50 ms: the limit settles just past 16, where latency starts to grow', () => {
    const r = simulate(simService({ capacity: 16, latencyMs: 50, jitter: 0.2 }), 9600);
    expect(ratio(r, 9600, 320)).toBeGreaterThanOrEqual(0.9);
    expect(r.throttled).toBe(0);
    const held = traceAfter(r, 3000).map((t) => t.concurrency);
    expect(Math.min(...held)).toBeGreaterThanOrEqual(12);
    // It does not fill the service's queue up to its own maximum.
    expect(Math.max(...held)).toBeLessThanOrEqual(32);
  });

  it("a capacity of 6 at 40 ms whose first round pays the run's start: held near 6, not doubled on to the maximum", () => {
    // The CLI's pacing test, against the sandbox in the test's own process: its first answers take
    // 20-40 ms more than the service's time, so the baseline is up to twice the service's, and the
    // queue the next round builds must still be seen. (With the spread measured over every answer
    // of the run, the climb from round to round was taken for noise: 64 in flight at 35 ms more.)
    for (const extraMs of [0, 20, 40]) {
      const r = simulate(simService({ capacity: 6, latencyMs: 40, warmUp: { untilMs: 10, extraMs } }), 600);
      const peak = Math.max(...r.trace.map((t) => t.inFlight));
      expect(peak, `first round ${extraMs} ms slower`).toBeLessThan(40);
      expect(ratio(r, 600, 150), `first round ${extraMs} ms slower`).toBeGreaterThanOrEqual(0.75);
    }
  });

  it('no limit at 800 ms: up to the maximum in flight within a few seconds (slow start doubles)', () => {
    const r = simulate(simService({ latencyMs: 800, jitter: 0.2 }), 2400);
    const reached = r.trace.find((t) => t.concurrency >= DEFAULT_MAX_CONCURRENCY - 4);
    expect(reached?.at).toBeLessThanOrEqual(4000);
    expect(ratio(r, 2400, DEFAULT_MAX_CONCURRENCY / 0.8)).toBeGreaterThanOrEqual(0.9);
  });

  it('is deterministic: the same service gives the same run', () => {
    const a = simulate(simService({ rate: 50, latencyMs: 300, jitter: 0.2 }), 500);
    const b = simulate(simService({ rate: 50, latencyMs: 300, jitter: 0.2 }), 500);
    expect(a.attempts).toBe(b.attempts);
    expect(a.endedAt).toBe(b.endedAt);
  });
});

describe('following a service that changes', () => {
  it('a bucket halved mid-run (100/s to 50/s): down to it within seconds, few 429s', () => {
    const service = simService({ rate: 100, latencyMs: 200, jitter: 0.2 });
    const r = simulate(service, 3000, {
      onTick: (at) => {
        if (at >= 15_000) service.model.rate = 50;
      },
    });
    expect(rateBetween(r, 5000, 15_000)).toBeGreaterThanOrEqual(90);
    const after = rateBetween(r, 20_000, 40_000);
    expect(after).toBeGreaterThanOrEqual(45);
    expect(after).toBeLessThanOrEqual(52);
    expect(share429(r)).toBeLessThanOrEqual(0.02);
    const ideal = 15_000 + ((3000 - 1500) / 50) * 1000;
    expect(ideal / r.endedAt).toBeGreaterThanOrEqual(0.9);
  });

  it('a bucket raised mid-run (50/s to 100/s): the rate climbs past the old limit and finds the new one', () => {
    const service = simService({ rate: 50, latencyMs: 200, jitter: 0.2 });
    const r = simulate(service, 4000, {
      onTick: (at) => {
        if (at >= 20_000) service.model.rate = 100;
      },
    });
    expect(rateBetween(r, 10_000, 20_000)).toBeLessThanOrEqual(52);
    expect(rateBetween(r, 30_000, 35_000)).toBeGreaterThanOrEqual(90);
  });

  it('a capacity halved, then raised: the limit shrinks as the queue grows, and grows again', () => {
    const service = simService({ capacity: 32, latencyMs: 50, jitter: 0.2 });
    const r = simulate(service, 40_000, {
      untilMs: 30_000,
      onTick: (at) => {
        service.model.capacity = at >= 10_000 && at < 20_000 ? 16 : 32;
      },
    });
    const mean = (from: number, to: number) => {
      const part = r.trace.filter((t) => t.at >= from && t.at < to);
      return part.reduce((sum, t) => sum + t.concurrency, 0) / part.length;
    };
    expect(mean(5000, 10_000)).toBeGreaterThanOrEqual(32);
    expect(mean(14_000, 20_000)).toBeLessThanOrEqual(28);
    expect(mean(25_000, 30_000)).toBeGreaterThanOrEqual(32);
    expect(rateBetween(r, 14_000, 20_000)).toBeGreaterThanOrEqual(0.9 * 320);
  });

  it('5xx answers cut the limit, and it grows back once they stop', () => {
    const service = simService({
      capacity: 64,
      latencyMs: 100,
      failing: (at) => at >= 5000 && at < 7000,
    });
    const r = simulate(service, 100_000, { untilMs: 20_000 });
    const at = (ms: number) => r.trace.find((t) => t.at >= ms)?.concurrency ?? 0;
    expect(at(7000)).toBeLessThan(at(5000) / 2);
    expect(at(19_000)).toBeGreaterThan(at(7000));
    expect(r.pace.reading(19_000).change).not.toBe('slower-failing');
  });
});

describe('429s that are not a pace', () => {
  it('a service that refuses everything (an allowance used up), without a Retry-After: every request pauses, and it says how often', () => {
    const pace = new Pace();
    // One request at a time, each refused at once (1 ms later).
    const refuse = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => {
        pace.sent(from + 10 * i);
        return pace.ended(from + 10 * i, from + 10 * i + 1, 'throttled');
      });
    // Three sent, three refused, nothing answered: every request waits.
    expect(refuse(0, 3)).toEqual([false, false, true]);
    expect(pace.reading(21).change).toBe('paused');
    expect(PACE_CHANGES.paused).toMatch(/429/);
    expect(pace.refusedInARow).toBe(1);
    // Requests sent after that pause refused again: a second pause in a row.
    expect(refuse(1100, 3)).toEqual([false, false, true]);
    expect(pace.refusedInARow).toBe(2);
    // The rate was not cut for it: refusing everything is no pace.
    expect(pace.ratePerSecond).toBeUndefined();
    // One answer, and the count starts again.
    pace.sent(3200);
    pace.ended(3200, 3250, 'answered');
    expect(pace.refusedInARow).toBe(0);
  });

  it('a count spent again after a pause, with a Retry-After in whole seconds: one request at a time goes to see from the earliest the count may start again', () => {
    const pace = new Pace();
    // The first time, everything refused is waited out (it may be another process on a bucket).
    letThrough(pace, 0);
    expect(refusedUntilPaused(pace, 100, 2000).everyone).toBe(true);
    // After the pause, a count let through, then everything refused again: a window. "Retry after
    // 2 s", said of a request sent at `at`: the count starts again more than a second after it,
    // and no later than 2 s after its answer.
    letThrough(pace, 2200);
    const { everyone, at } = refusedUntilPaused(pace, 2300, 2000);
    expect(everyone).toBe(false);
    expect(pace.concurrency).toBe(1);
    expect(pace.readyAt(at + 1)).toBe(at + 1000);
    // The first probe refused ("1 s" now): the next one a quarter of a second later.
    pace.sent(at + 1000);
    expect(pace.ended(at + 1000, at + 1001, 'throttled', 1000)).toBe(false);
    expect(pace.readyAt(at + 1001)).toBe(at + 1250);
    // The second one answered: the count is open to everyone again, at full pace.
    pace.sent(at + 1250);
    pace.ended(at + 1250, at + 1350, 'answered');
    expect(pace.concurrency).toBeGreaterThan(1);
    expect(pace.readyAt(at + 1350)).toBe(at + 1350);
    expect(pace.ratePerSecond).toBeUndefined();
    expect(pace.refusedInARow).toBe(0);
  });

  it('had no probe been answered, the stated time ends the probing; refused again, that is a second pause in a row', () => {
    const pace = new Pace();
    letThrough(pace, 0);
    refusedUntilPaused(pace, 100, 1000);
    letThrough(pace, 1300);
    const { at } = refusedUntilPaused(pace, 1400, 1000);
    expect(pace.concurrency).toBe(1);
    expect(pace.refusedInARow).toBe(1);
    expect(pace.readyAt(at + 1001)).toBe(at + 1001);
    expect(pace.concurrency).toBeGreaterThan(1);
    // Everyone goes, and is refused: an allowance used up stops the run (bulk's sender).
    for (const t of [at + 1001, at + 1011, at + 1021]) {
      pace.sent(t);
      pace.ended(t, t + 1, 'throttled', 1000);
    }
    expect(pace.refusedInARow).toBe(2);
  });

  it('beside another process on one bucket: its share let through, then everything refused, then refusals here and there: every pause waited out', () => {
    // The first pause is always waited out; after it, most of what is sent is refused: no window.
    const pace = new Pace();
    letThrough(pace, 0);
    expect(refusedUntilPaused(pace, 100, 1000).everyone).toBe(true);
    // Half of what it sends let through, the other half refused, turn and turn about: 30 answered.
    for (let at = 1300; at < 1900; at += 10) {
      pace.sent(at);
      pace.ended(at, at + 5, at % 20 === 0 ? 'answered' : 'throttled', 1000);
    }
    expect(refusedUntilPaused(pace, 1900, 1000).everyone).toBe(true);
    expect(pace.concurrency).toBeGreaterThan(1);
  });

  it("two processes on one bucket (the bench's family f): the bucket's Retry-After is never taken for a window's reset", () => {
    // Probing from the first pause on starved the second process here (34 answers/s together, its
    // rows done 14 s after the first's), its rate cut to what it got beside the other. Every pause
    // is waited out, as without a Retry-After. (Together 0.64 of the best fixed setting: issue 36's
    // family f, not met.)
    const run = (rateRetryAfterMs: number | undefined) =>
      simulateClients(simService({ rate: 100, latencyMs: 200, sigma: 0.3, seed: 3, rateRetryAfterMs }), [
        { requests: 300, pace: new Pace() },
        { requests: 300, pace: new Pace() },
      ]).map((r) => r.endedAt);
    expect(run(1000)).toEqual(run(undefined));
  });

  it('a 429 while other requests are answered does not pause the others: it cuts the rate', () => {
    const pace = new Pace();
    for (let t = 0; t < 1000; t += 10) {
      pace.sent(t);
      pace.ended(t, t + 5, 'answered');
    }
    pace.sent(1000);
    expect(pace.ended(1000, 1001, 'throttled')).toBe(false);
    expect(pace.reading(1001).change).toBe('slower-throttled');
    const rate = pace.ratePerSecond ?? 0;
    expect(rate).toBeGreaterThan(0);
    expect(rate).toBeLessThan(100);
    expect(pace.readyAt(1001)).toBeGreaterThanOrEqual(1001);
  });
});

describe('what the user sets', () => {
  it('a fixed number: the limit never moves, and a 429 pauses every request as it always has', () => {
    const r = simulate(simService({ rate: 50, latencyMs: 300 }), 1000, { fixedConcurrency: 32 });
    expect(new Set(r.trace.map((t) => t.concurrency))).toEqual(new Set([32]));
    expect(r.throttled).toBeGreaterThan(0);
    const pace = new Pace({ fixedConcurrency: 8 });
    pace.sent(0);
    expect(pace.ended(0, 10, 'throttled')).toBe(true);
    expect(pace.reading(10).change).toBe('fixed');
  });

  it('--max-rate caps the rate, with or without a limit of the service', () => {
    const r = simulate(simService({ latencyMs: 800 }), 600, { maxRate: 20 });
    expect(rateBetween(r, 2000, 20_000)).toBeLessThanOrEqual(20.5);
    expect(rateBetween(r, 2000, 20_000)).toBeGreaterThanOrEqual(19);
    // The reason shown is the cap the user set, not "starting small" (issue 40).
    expect(r.pace.reading(10_000).change).toBe('capped');
    expect(PACE_CHANGES.capped).toBe('held at the maximum rate you set');
    // A cap far above what the run reaches is not what holds it.
    const loose = simulate(simService({ latencyMs: 800 }), 200, { maxRate: 10_000 });
    expect(loose.pace.reading(loose.endedAt).change).not.toBe('capped');
    // A service that throttles under the cap is the reason, not the cap.
    const throttled = simulate(simService({ rate: 10, latencyMs: 100 }), 400, { maxRate: 20 });
    expect(throttled.pace.reading(throttled.endedAt).change).toBe('slower-throttled');
  });

  it('--max-concurrency caps the limit', () => {
    const r = simulate(simService({ latencyMs: 800 }), 600, { maxConcurrency: 10 });
    expect(Math.max(...r.trace.map((t) => t.concurrency))).toBe(10);
  });
});

describe('carried from one execution to the next (Apps Script)', () => {
  it('a snapshot restores what was learnt: the limit and the rate', () => {
    const first = simulate(simService({ rate: 50, latencyMs: 300, jitter: 0.2 }), 600);
    const state = first.pace.snapshot();
    const next = new Pace({}, first.endedAt, JSON.parse(JSON.stringify(state)));
    expect(next.concurrency).toBe(first.pace.concurrency);
    expect(next.ratePerSecond).toBeCloseTo(first.pace.ratePerSecond ?? 0, 6);
  });
});

/** Answers per second of a run over the whole of it. */
const perSecond = (r: SimResult, requests: number) => (requests / r.endedAt) * 1000;

/** The best of the fixed settings a user could have chosen (8, 16, 32, 64), on the same service. */
function bestFixed(model: Parameters<typeof simService>[0], requests: number): number {
  return Math.max(
    ...[8, 16, 32, 64].map((fixed) =>
      perSecond(simulate(simService(model), requests, { fixedConcurrency: fixed }), requests),
    ),
  );
}

describe('a real service: latency that jitters with a long tail (log-normal)', () => {
  const REQUESTS = 10_000;
  const SEEDS = [1, 2, 3];

  it.each([0.25, 0.5, 1, 1.25])(
    'no limit, σ %s: up to the maximum in flight, at least 0.9 of the best fixed setting',
    (sigma) => {
      for (const seed of SEEDS) {
        const model = { latencyMs: 120, sigma, seed };
        const r = simulate(simService(model), REQUESTS);
        expect(perSecond(r, REQUESTS) / bestFixed(model, REQUESTS), `seed ${seed}`).toBeGreaterThanOrEqual(
          0.9,
        );
        expect(r.trace.at(-1)?.concurrency, `seed ${seed}`).toBe(DEFAULT_MAX_CONCURRENCY);
      }
    },
  );

  it.each([
    { capacity: 16, latencyMs: 50, sigma: 0.5 },
    { capacity: 16, latencyMs: 50, sigma: 1 },
    { capacity: 32, latencyMs: 80, sigma: 1 },
  ])(
    'behind a capacity of $capacity, σ $sigma: at least 0.9 of the best fixed setting, held near the knee',
    (base) => {
      for (const seed of SEEDS) {
        const model = { ...base, seed };
        const r = simulate(simService(model), REQUESTS);
        expect(perSecond(r, REQUESTS) / bestFixed(model, REQUESTS), `seed ${seed}`).toBeGreaterThanOrEqual(
          0.9,
        );
        // The service's queue is not filled up to the controller's own maximum.
        const held = traceAfter(r, 5000).map((t) => t.concurrency);
        expect(Math.max(...held), `seed ${seed}`).toBeLessThanOrEqual(2.5 * base.capacity);
      }
    },
  );

  it('a latency that steps up mid-run (120 to 360 ms, no limit): back at the best fixed rate within seconds', () => {
    const step = (fixed?: number) => {
      const service = simService({ latencyMs: 120, sigma: 0.5 });
      return simulate(service, 30_000, {
        ...(fixed ? { fixedConcurrency: fixed } : {}),
        onTick: (at) => {
          if (at >= 10_000) service.model.latencyMs = 360;
        },
      });
    };
    const auto = step();
    const fixed = step(DEFAULT_MAX_CONCURRENCY);
    // A queue of ours would have shrunk with the cuts; this one did not: the baseline is measured
    // anew, and the pace found afresh.
    expect(rateBetween(auto, 25_000, 45_000)).toBeGreaterThanOrEqual(
      0.9 * rateBetween(fixed, 25_000, 45_000),
    );
  });
});

describe('a real service: overload and windows', () => {
  it('503 at once beyond a capacity of 16 (no queue, no Retry-After): few refused, near the ceiling', () => {
    const model = { capacity: 16, latencyMs: 50, sigma: 0.5, overload: true };
    const r = simulate(simService(model), 10_000);
    expect(r.failed / r.attempts).toBeLessThanOrEqual(0.03);
    // The ceiling: 16 at once, each for the mean of the log-normal service time.
    const ceiling = (16 / (50 * Math.exp(0.5 ** 2 / 2))) * 1000;
    expect(perSecond(r, 10_000) / ceiling).toBeGreaterThanOrEqual(0.9);
  });

  it("503 at once past 8 in service, latency log-normal (the bench's family c): few refused, as fast as the best fixed setting", () => {
    // A refusal frees its place at once: unless the limit is cut when the refusal comes, the place
    // is refilled and refused again many times a round trip (half of the requests refused here).
    for (const sigma of [0.25, 0.5, 1]) {
      const model = { capacity: 8, latencyMs: 100, sigma, overload: true, seed: 2 };
      const r = simulate(simService(model), 2000);
      expect(r.failed / r.attempts).toBeLessThanOrEqual(0.03);
      // With σ 1 the pacing between sends, not the refusals, holds it at 0.86 (issue 36's note).
      if (sigma < 1) expect(perSecond(r, 2000)).toBeGreaterThanOrEqual(0.9 * bestFixed(model, 2000));
    }
  });

  it('600 requests per fixed 10 s window, 429 with Retry-After to the window end: near 60/s, few refused', () => {
    const r = simulate(simService({ latencyMs: 120, sigma: 0.5, window: { limit: 600, ms: 10_000 } }), 6000);
    expect(perSecond(r, 6000) / 60).toBeGreaterThanOrEqual(0.9);
    expect(share429(r)).toBeLessThanOrEqual(0.03);
  });

  it("a short window (200 per 2 s), Retry-After in whole seconds and no headers (the bench's family d): as fast as the best fixed setting, few refused", () => {
    // Waiting out "retry after 2 s" waits up to a second past the reset, half of this window: 0.86
    // to 0.93 of the best fixed setting here before the reset was probed for (window-reset.ts), and
    // the count was spread at the rate its end was taken for. Five windows, as in the bench.
    for (const seed of [1, 2, 3]) {
      const model = { latencyMs: 100, sigma: 0.5, seed, window: { limit: 200, ms: 2000 } };
      const r = simulate(simService(model), 1000);
      expect(perSecond(r, 1000)).toBeGreaterThanOrEqual(0.93 * bestFixed(model, 1000));
      expect(share429(r)).toBeLessThanOrEqual(0.03);
    }
  });

  it('the same window, its count in the headers (X-RateLimit-Remaining / -Reset): each count spent, then its reset awaited, no 429', () => {
    const r = simulate(
      simService({ latencyMs: 120, sigma: 0.5, window: { limit: 600, ms: 10_000, headers: true } }),
      6000,
    );
    expect(perSecond(r, 6000) / 60).toBeGreaterThanOrEqual(0.9);
    expect(r.throttled).toBeLessThanOrEqual(2);
  });

  it('a short window (200 per 2 s) whose headers say the reset in whole seconds: as fast as the best fixed setting, no 429', () => {
    // "1 s to the reset" means anything up to a second: waiting a second from the last such answer
    // lost a quarter of each 2 s window (0.65 of the best fixed setting in the bench). Each answer
    // narrows when the count starts again; the client spends each count at full pace, without a
    // 429, and goes on when the next one starts. Five windows, as in the bench.
    const model = { latencyMs: 100, sigma: 0.5, window: { limit: 200, ms: 2000, headers: true } };
    const r = simulate(simService(model), 1000);
    expect(perSecond(r, 1000)).toBeGreaterThanOrEqual(0.95 * bestFixed(model, 1000));
    expect(r.throttled).toBe(0);
  });
});

/** A count let through: 40 requests from `from`, each answered in 50 ms. */
function letThrough(pace: Pace, from: number): void {
  for (let i = 0; i < 40; i++) {
    pace.sent(from + i);
    pace.ended(from + i, from + i + 50, 'answered');
  }
}

/**
 * Requests refused from `from`, 10 ms apart, each said to retry after `retryAfterMs`, until the
 * pace takes it for everything refused: whether it then paused everyone, and when the last was sent.
 */
function refusedUntilPaused(
  pace: Pace,
  from: number,
  retryAfterMs: number,
): { everyone: boolean; at: number } {
  for (let at = from; at < from + 200; at += 10) {
    pace.sent(at);
    const everyone = pace.ended(at, at + 1, 'throttled', retryAfterMs);
    if (pace.reading(at + 1).change === 'paused') return { everyone, at };
  }
  throw new Error('never paused');
}
