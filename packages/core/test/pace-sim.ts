// Simulated services and a simulated client for the pace controller, on a simulated clock: a
// gateway's token bucket (429 at once past it), a backend with a capacity and a queue, a fixed
// latency; the client sends as the bulk engine does (a slot per request in flight, the request
// waiting in its slot for its turn), retries a 429 after its Retry-After, and pauses everyone when
// the controller says so. Deterministic: no randomness, no timers.
import { type AttemptSignal, Pace, type PaceOptions, readRateLimit } from '../src/index.js';

export interface ServiceAnswer {
  readonly status: 200 | 429 | 500 | 503;
  readonly doneAt: number;
  /** A 429's Retry-After, when the service sends one. */
  readonly retryAfterMs?: number;
  /**
   * The window's headers, as a gateway sends them: remaining requests and whole seconds to the
   * reset, rounded up (read by the client with core's readRateLimit when the answer arrives).
   */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface SimService {
  request(at: number): ServiceAnswer;
}

export interface ServiceModel {
  /** Requests per second let through by a token bucket (429 at once past it); none if undefined. */
  rate?: number;
  /** The bucket's size; one second's worth by default. */
  burst?: number;
  /** The bucket's 429 says Retry-After (ms), as the sandbox's does ("1"); none if undefined. */
  rateRetryAfterMs?: number;
  /** Requests served at once; the rest wait in a queue (or, with `overload`, are answered 503). */
  capacity?: number;
  /** Past the capacity, answer 503 at once instead of queueing (an overloaded backend, no Retry-After). */
  overload?: boolean;
  /** N requests per fixed window (a gateway's "per minute"): past it, 429 with Retry-After to the window's end. */
  window?: { readonly limit: number; readonly ms: number; readonly headers?: boolean };

  /** Service time of one request (ms). */
  latencyMs: number;
  /** Each service time is latencyMs times a factor drawn evenly from [1 - jitter, 1 + jitter]. */
  jitter?: number;
  /**
   * Each service time is drawn from a log-normal whose median is latencyMs and whose log has this
   * standard deviation (σ): real services' latency, with a long tail (σ 1: one answer in 20 takes
   * over 5 times the median).
   */
  sigma?: number;
  /** Seeds the draws of jitter and σ: another seed, another run of the same service. */
  seed?: number;
  /** Answer 500 instead of 200 while this returns true. */
  failing?: (at: number) => boolean;
  /**
   * Requests sent before `untilMs` are answered `extraMs` later, outside the service's capacity: a
   * run's first requests pay for its start (connections opened, code not yet warm), as the CLI's,
   * against the sandbox in its own process, take twice the service time.
   */
  warmUp?: { readonly untilMs: number; readonly extraMs: number };
}

/** A service whose model may change mid-run (a limit halved, say): `model` is read at every request. */
export function simService(model: ServiceModel): SimService & { model: ServiceModel } {
  let tokens = model.burst ?? model.rate ?? 0;
  let filledAt = 0;
  let slots: number[] = [];
  let seed = model.seed ?? 12345;
  // A small LCG: the same jitter on every run.
  const uniform = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const serviceTime = (m: ServiceModel) => {
    if (m.sigma !== undefined) {
      // Box-Muller: a standard normal from two uniforms (the first kept off 0).
      const z = Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
      return m.latencyMs * Math.exp(m.sigma * z);
    }
    return m.latencyMs * (1 + (m.jitter ?? 0) * (2 * uniform() - 1));
  };
  let windowStart = 0;
  let windowCount = 0;
  const service = {
    model,
    request(at: number): ServiceAnswer {
      const m = service.model;
      if (m.window !== undefined) {
        if (at >= windowStart + m.window.ms) {
          windowStart = Math.floor(at / m.window.ms) * m.window.ms;
          windowCount = 0;
        }
        // Retry-After and the reset in whole seconds, rounded up, as HTTP and the sandbox send them.
        const resetSeconds = Math.ceil((windowStart + m.window.ms - at) / 1000);
        const headers = m.window.headers
          ? {
              'x-ratelimit-remaining': String(Math.max(0, m.window.limit - windowCount - 1)),
              'x-ratelimit-reset': String(resetSeconds),
            }
          : undefined;
        if (windowCount >= m.window.limit) {
          return {
            status: 429,
            doneAt: at + 1,
            retryAfterMs: resetSeconds * 1000,
            ...(headers ? { headers } : {}),
          };
        }
        windowCount++;
        const answer = served(m, at);
        return headers ? { ...answer, headers } : answer;
      }
      const answer = served(m, at);
      return m.warmUp && at < m.warmUp.untilMs
        ? { ...answer, doneAt: answer.doneAt + m.warmUp.extraMs }
        : answer;
    },
  };
  // Behind the window: the bucket, then the backend.
  function served(m: ServiceModel, at: number): ServiceAnswer {
    if (m.rate !== undefined) {
      const burst = m.burst ?? Math.max(1, m.rate);
      tokens = Math.min(burst, tokens + ((at - filledAt) / 1000) * m.rate);
      filledAt = at;
      if (tokens < 1) {
        const retryAfterMs = m.rateRetryAfterMs;
        return retryAfterMs === undefined
          ? { status: 429, doneAt: at + 1 }
          : { status: 429, doneAt: at + 1, retryAfterMs };
      }
      tokens -= 1;
    }
    const time = serviceTime(m);
    if (m.failing?.(at)) return { status: 500, doneAt: at + time };
    if (m.capacity === undefined) return { status: 200, doneAt: at + time };
    if (slots.length !== m.capacity) slots = Array.from({ length: m.capacity }, (_, i) => slots[i] ?? 0);
    let first = 0;
    for (let i = 1; i < slots.length; i++) if ((slots[i] as number) < (slots[first] as number)) first = i;
    if (m.overload && (slots[first] as number) > at) return { status: 503, doneAt: at + 1 };
    const start = Math.max(at, slots[first] as number);
    slots[first] = start + time;
    return { status: 200, doneAt: start + time };
  }
  return service;
}

export interface SimResult {
  /** Successful answers (200) and when each came. */
  readonly answeredAt: number[];
  readonly attempts: number;
  readonly throttled: number;
  readonly failed: number;
  readonly endedAt: number;
  /** The controller's concurrency and rate, sampled every 100 ms. */
  readonly trace: { at: number; concurrency: number; rate: number | undefined; inFlight: number }[];
  readonly pace: Pace;
}

interface Event {
  at: number;
  run: () => void;
}

type SimOptions = PaceOptions & {
  untilMs?: number;
  retryAfterMs?: number;
  onTick?: (at: number) => void;
  /**
   * Clients tell each other when they end, as runs on one machine do (bulk's pace-neighbours.ts):
   * within this many ms of a client's last answer, the others hear the rate it ended at.
   */
  neighboursHearWithinMs?: number;
};

/** Sends `requests` requests through the controller to the service until all are answered or `untilMs`. */
export function simulate(
  service: SimService,
  requests: number,
  options: SimOptions = {},
  pace = new Pace(options),
): SimResult {
  return simulateClients(service, [{ requests, pace }], options)[0] as SimResult;
}

/**
 * Several clients (processes on one key), each with its own controller and its own requests,
 * sending to the one service on the one clock: each client's result.
 */
export function simulateClients(
  service: SimService,
  clients: readonly { requests: number; pace: Pace }[],
  options: SimOptions = {},
): SimResult[] {
  const events: Event[] = [];
  const schedule = (at: number, run: () => void) => {
    let i = events.length;
    while (i > 0 && (events[i - 1] as Event).at > at) i--;
    events.splice(i, 0, { at, run });
  };
  const clock = { now: 0 };
  const sims = clients.map(
    ({ requests, pace }) =>
      new SimClient(service, requests, pace, options.retryAfterMs ?? 1000, clock, schedule),
  );
  const until = options.untilMs ?? 600_000;
  const finished = () => sims.every((sim) => sim.done >= sim.requests);
  const heard = new Set<SimClient>();
  const tick = () => {
    for (const sim of sims) sim.sample();
    const within = options.neighboursHearWithinMs;
    if (within !== undefined) {
      for (const sim of sims) {
        if (sim.done < sim.requests || heard.has(sim) || clock.now < sim.lastAnswerAt + within) continue;
        heard.add(sim);
        const rate = sim.pace.ratePerSecond;
        if (rate === undefined) continue;
        // Shared among those still going, as pace-neighbours.ts shares it.
        const left = sims.filter((other) => other.done < other.requests);
        for (const other of left) other.pace.neighbourEnded(rate / left.length, clock.now);
      }
    }
    options.onTick?.(clock.now);
    if (!finished() && clock.now < until) schedule(clock.now + 100, tick);
  };
  schedule(0, tick);
  for (const sim of sims) sim.fill();
  while (events.length > 0 && !finished()) {
    const event = events.shift() as Event;
    clock.now = event.at;
    if (clock.now > until) break;
    event.run();
  }
  return sims.map((sim) => sim.result(clock.now));
}

/**
 * One client as the bulk engine sends: a slot per request in flight, the request waiting in its
 * slot for its turn by the rate, one at a time; a 429 retried after its Retry-After, and everyone
 * paused when the controller says so.
 */
class SimClient {
  done = 0;
  private waiting: number;
  private slotsTaken = 0;
  private inFlight = 0;
  private pausedUntil = 0;
  private attempts = 0;
  private throttled = 0;
  private failed = 0;
  private readonly answeredAt: number[] = [];
  private readonly trace: SimResult['trace'] = [];
  private wakeScheduled = false;

  constructor(
    private readonly service: SimService,
    readonly requests: number,
    readonly pace: Pace,
    private readonly retryAfter: number,
    private readonly clock: { now: number },
    private readonly schedule: (at: number, run: () => void) => void,
  ) {
    this.waiting = requests;
  }

  /** The engine's pacer: requests wait for a free slot, then for their turn by the rate. */
  fill(): void {
    const { pace, clock } = this;
    if (this.wakeScheduled) return;
    const readyAt = Math.max(this.pausedUntil, pace.readyAt(clock.now));
    if (this.waiting === 0 || this.slotsTaken >= pace.concurrency) return;
    if (readyAt > clock.now) {
      this.wakeScheduled = true;
      this.schedule(readyAt, () => {
        this.wakeScheduled = false;
        this.fill();
      });
      return;
    }
    this.waiting--;
    this.slotsTaken++;
    this.send();
    this.fill();
  }

  private send(): void {
    const { pace, clock } = this;
    const sentAt = clock.now;
    pace.sent(sentAt);
    this.inFlight++;
    this.attempts++;
    const answer = this.service.request(sentAt);
    this.schedule(answer.doneAt, () => {
      const now = clock.now;
      this.inFlight--;
      this.slotsTaken--;
      const signal: AttemptSignal =
        answer.status === 200 ? 'answered' : answer.status === 429 ? 'throttled' : 'failed';
      const hint = answer.headers && readRateLimit(answer.headers, now, sentAt);
      if (hint) pace.rateLimitHint(hint);
      const pauseAll = pace.ended(sentAt, now, signal, answer.retryAfterMs);
      if (answer.status === 200) {
        this.done++;
        this.answeredAt.push(now);
      } else {
        if (answer.status === 429) this.throttled++;
        else this.failed++;
        const wait = answer.retryAfterMs ?? this.retryAfter;
        if (pauseAll) this.pausedUntil = Math.max(this.pausedUntil, now + wait);
        // The request comes back to the queue after its Retry-After (or a short backoff for a 5xx).
        this.schedule(now + (answer.status === 429 ? wait : 200), () => {
          this.waiting++;
          this.fill();
        });
      }
      this.fill();
    });
  }

  sample(): void {
    const { pace } = this;
    this.trace.push({
      at: this.clock.now,
      concurrency: pace.concurrency,
      rate: pace.ratePerSecond,
      inFlight: this.inFlight,
    });
  }

  get lastAnswerAt(): number {
    return this.answeredAt[this.answeredAt.length - 1] ?? 0;
  }

  result(endedAt: number): SimResult {
    const { answeredAt, attempts, throttled, failed, trace, pace } = this;
    const end = this.done >= this.requests ? (answeredAt[answeredAt.length - 1] ?? endedAt) : endedAt;
    return { answeredAt, attempts, throttled, failed, endedAt: end, trace, pace };
  }
}

/** Answers per second between two times. */
export function rateBetween(result: SimResult, from: number, to: number): number {
  const count = result.answeredAt.filter((at) => at >= from && at < to).length;
  return count / ((to - from) / 1000);
}
