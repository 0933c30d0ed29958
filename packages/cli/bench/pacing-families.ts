// The services the pacing bench runs enrich against (issues 22 and 36): each a sandbox model (its
// knobs, packages/sandbox's Service models), the ceiling the service allows, and how much work the
// run is given. Kept apart from the runner (pacing.ts) so that the list reads as what is measured.
//
// Runs are short (6 s of work at the ceiling, 10 s for the slow and the windowed services) so that
// the twelve services with five settings each fit in about ten minutes on 2 CPUs; a short run makes
// the controller's climb and a bucket's first burst a larger share of it than a long one would, and
// the ceilings count the burst for that reason.

/** Requests a service allows by `ms` after its first request. */
type Allowed = (ms: number) => number;

export interface Family {
  /** The letter of issue 36's list, or the issue that brought it ("22"). */
  readonly key: string;
  readonly name: string;
  /** The sandbox's options at the start of each run. */
  readonly model: Readonly<Record<string, unknown>>;
  /** The ceiling, integrated over time: what the service allows by `ms`. */
  readonly allowedBy: Allowed;
  /** Seconds of work at the ceiling: the rows, and how long a fixed setting may run. */
  readonly workSeconds: number;
  /** The ceiling's steady rate (per second), for the rows. */
  readonly perSecond: number;
  /** Processes sharing the service (one key), each given its share of the rows. */
  readonly processes: 1 | 2;
  /**
   * The length of the service's fixed window: each run then starts as a window starts (the sandbox's
   * windows are aligned to the clock), so that every setting meets the same phase of it. Started
   * anywhere, a run that begins late in a window gets a full count that ends soon: the best fixed
   * setting's figure moved from 174 to 248 answers/s from one run to the next (bench/README.md).
   */
  readonly windowMs?: number;
  /**
   * Also run the defaults a second time, right after the first, with its home (so with the pace it
   * remembered: issue 36's "a second run ... even when it lasts 10 s").
   */
  readonly secondRun?: boolean;
  /** A change of the model mid-run, `atMs` after enrich starts. */
  readonly change?: { readonly atMs: number; readonly knobs: Readonly<Record<string, unknown>> };
}

/** The most requests the CLI keeps in flight (core's DEFAULT_MAX_CONCURRENCY): a ceiling of its own. */
const MAX_IN_FLIGHT = 64;
const WORK = 6;

/** A steady ceiling. */
const steady =
  (perSecond: number): Allowed =>
  (ms) =>
    (perSecond * ms) / 1000;
/** A token bucket: its burst at once, then its rate (the bucket starts full). */
const bucket =
  (rate: number): Allowed =>
  (ms) =>
    rate + (rate * ms) / 1000;
/** A fixed window: a whole count at once (the first window is a full one), then `limit` a window. */
const windowed =
  (limit: number, windowMs: number): Allowed =>
  (ms) =>
    limit + (limit * ms) / windowMs;
/** Without a limit, the CLI's own: 64 in flight, each for the mean service time. */
const inFlight = (meanMs: number): number => MAX_IN_FLIGHT / (meanMs / 1000);
/** A log-normal's mean: its median times e^(σ²/2). */
const logNormalMean = (medianMs: number, sigma: number): number => medianMs * Math.exp((sigma * sigma) / 2);

const family = (f: Omit<Family, 'processes' | 'workSeconds'> & Partial<Family>): Family => ({
  processes: 1,
  workSeconds: WORK,
  ...f,
});

export const FAMILIES: readonly Family[] = [
  family({
    key: 'a',
    name: 'no limit, log-normal σ 1, median 120 ms',
    model: { latencyMs: 120, latencySigma: 1 },
    perSecond: inFlight(logNormalMean(120, 1)),
    allowedBy: steady(inFlight(logNormalMean(120, 1))),
  }),
  family({
    key: 'b',
    name: 'no limit, log-normal σ 0.5, median 120 ms',
    model: { latencyMs: 120, latencySigma: 0.5 },
    perSecond: inFlight(logNormalMean(120, 0.5)),
    allowedBy: steady(inFlight(logNormalMean(120, 0.5))),
  }),
  family({
    key: 'c',
    name: 'overload: 503 at once past 8 in service, 100 ms',
    model: { capacity: 8, overload: '503', latencyMs: 100 },
    perSecond: 8 / 0.1,
    allowedBy: steady(8 / 0.1),
  }),
  // Five windows in the run: a client that spends each window's count at once finishes its file as
  // a window starts, one that spreads the count over the window as the next one starts; over five
  // windows that end is a fifth of the run at most (over an hour of per-minute windows, a sixtieth).
  family({
    key: 'd',
    name: 'fixed window 200 per 2 s, Retry-After, 100 ms',
    model: { windowLimit: 200, windowMs: 2000, latencyMs: 100 },
    perSecond: 100,
    allowedBy: windowed(200, 2000),
    workSeconds: 10,
    windowMs: 2000,
  }),
  family({
    key: 'd+',
    name: 'the same window, with rate headers',
    model: { windowLimit: 200, windowMs: 2000, latencyMs: 100, rateHeaders: true },
    perSecond: 100,
    allowedBy: windowed(200, 2000),
    workSeconds: 10,
    windowMs: 2000,
  }),
  family({
    key: 'e',
    name: 'token bucket 100/s, 429 without Retry-After, 100 ms',
    model: { rate: 100, rateRetryAfter: false, latencyMs: 100 },
    perSecond: 100,
    allowedBy: bucket(100),
  }),
  family({
    key: 'f',
    name: 'two processes on one key: token bucket 100/s, 200 ms',
    model: { rate: 100, latencyMs: 200 },
    perSecond: 100,
    allowedBy: bucket(100),
    processes: 2,
  }),
  family({
    key: 'g',
    name: 'no limit, 800 ms, a 10-second run (ceiling: 64 in flight)',
    model: { latencyMs: 800 },
    perSecond: inFlight(800),
    allowedBy: steady(inFlight(800)),
    workSeconds: 10,
    secondRun: true,
  }),
  family({
    key: '22',
    name: 'token bucket 50/s, 300 ms',
    model: { rate: 50, latencyMs: 300 },
    perSecond: 50,
    allowedBy: bucket(50),
  }),
  family({
    key: '22',
    name: 'token bucket 200/s, 100 ms',
    model: { rate: 200, latencyMs: 100 },
    perSecond: 200,
    allowedBy: bucket(200),
  }),
  family({
    key: '22',
    name: 'capacity 16 with a queue, 50 ms',
    model: { capacity: 16, latencyMs: 50 },
    perSecond: 16 / 0.05,
    allowedBy: steady(16 / 0.05),
  }),
  family({
    key: '22',
    name: 'token bucket 100/s halved to 50/s at 3 s, 200 ms',
    model: { rate: 100, latencyMs: 200 },
    // 3 s at 100/s then 3 s at 50/s: 75/s over the run's 6 s.
    perSecond: 75,
    allowedBy: (ms) => (ms <= 3000 ? bucket(100)(ms) : bucket(100)(3000) + (50 * (ms - 3000)) / 1000),
    change: { atMs: 3000, knobs: { rate: 50 } },
  }),
];
