// The pace of a bulk run, found from the service's own answers with nothing configured: how many
// requests may be in flight (a concurrency limit) and, once the service has answered 429, how many
// may start per second (a rate). Pure, like the rest of core: every event comes with its time, and
// the caller does the waiting (Node with timers, Apps Script with Utilities.sleep between rounds).
//
// Two limits, because services limit in two ways (see the README's "Pacing" for the designs read):
// - Capacity: a backend serves so many at once and queues the rest, so latency grows. The
//   concurrency limit follows TCP Vegas as Netflix's concurrency-limits applies it: each round trip,
//   the queue the service holds for us is estimated as limit x (1 - baseline / latency); below
//   alpha the limit grows (doubling per round trip at first, as TCP's slow start; then by one), above
//   beta (two round trips in a row) it shrinks, by a quarter at most. Real latency is noisy, with a
//   long tail, so each round is judged on its whole cohort (round.ts), a latency counts as a queue
//   only past what the measured noise explains (latency-noise.ts), and the baseline is measured
//   anew with the limit halved (baseline.ts). 5xx, timeouts and refused connections (an overloaded
//   backend answering 503 at once) cut it by a tenth, and it stays under the limit that drew them
//   for a while.
// - Rate: a gateway lets so many through per second and answers 429 past it; a 429 cuts the rate
//   and CUBIC grows it back (rate-estimate.ts). Requests are spaced 1/rate apart, so the run sits
//   just under the bucket instead of bouncing off it.
// The shapes the controller takes and gives (options, state, reading) are in pace-state.ts.
// A 429 while no request at all is being answered is not a pace but a refusal (a count used up):
// without a Retry-After every request waits a pause out; with one, its reset is probed for one
// request at a time (window-reset.ts).
// A number fixed by the user (--concurrency 8) turns all this off: the run keeps that many in flight,
// and a 429 pauses every request, as it always has.
import { Baseline } from './baseline.js';
import { EventWindow } from './event-window.js';
import { LatencyNoise } from './latency-noise.js';
import type { PaceChange } from './pace-changes.js';
import type { AttemptSignal, PaceOptions, PaceReading, PaceState } from './pace-state.js';
import { cutRate, grownRate } from './rate-estimate.js';
import { HeaderBudget, type RateLimitHint } from './rate-headers.js';
import { cohortMedian, inCohort, isJudged, newRound, type Round } from './round.js';
import { CountSpent, WindowReset } from './window-reset.js';

export type { AttemptSignal, PaceOptions, PaceReading, PaceState };

export const DEFAULT_MAX_CONCURRENCY = 64;
/** Requests in flight when a run starts with nothing known. */
export const INITIAL_CONCURRENCY = 8;

/** A 429 without Retry-After pauses this long, when it pauses everything. */
const DEFAULT_PAUSE_MS = 1000;
/** A queue cuts the limit to no less than this share of it per round trip. */
const MAX_CUT = 0.75;
/** After a 5xx or a timeout, the limit stays under the one that drew it this long, then tries it again. */
const REFUSED_HOLD_MS = 5000;
/** A shrinking limit never goes below one; 5xx and timeouts cut it by this share. */
const FAILURE_CUT = 0.9;
/** Answers and sends are counted over this window (or two baselines, if longer, up to the most). */
const WINDOW_MS = 1000;
const MAX_WINDOW_MS = 30_000;
/** Requests sent lately before a 429 tells anything (a rate, or a refusal of everything). */
const MIN_SENT = 3;

export class Pace {
  /** 429 answers seen. */
  throttled = 0;
  /**
   * Pauses in a row in which the service refused everything, each refusing a request sent after
   * the one before (no answer between): the caller may take the allowance to be used up.
   */
  refusedInARow = 0;
  private readonly state: PaceState;
  private readonly fixed: number | undefined;
  private readonly maxConcurrency: number;
  private readonly maxRate: number | undefined;
  private inFlight = 0;
  private round: Round;
  private readonly answers = new EventWindow(MAX_WINDOW_MS);
  private readonly sends = new EventWindow(MAX_WINDOW_MS);
  private readonly refusals = new EventWindow(MAX_WINDOW_MS);
  private firstSendAt: number | undefined;
  private lastThrottleAt = Number.NEGATIVE_INFINITY;
  /** Where measuring what the service lets through starts: the first send, or the end of a pause. */
  private measureFrom = Number.NEGATIVE_INFINITY;
  private pausedAt = Number.NEGATIVE_INFINITY;
  /** When the rate last grew (or could have): its growth is counted from there. */
  private grownAt: number | undefined;
  private throttleLatency = 0;
  private readonly noise = new LatencyNoise();
  private readonly baseline: Baseline;
  private readonly header = new HeaderBudget();
  private readonly window = new WindowReset();
  private readonly countSpent = new CountSpent();
  /** The limit at which the service last failed or refused, and when: growth stops under it a while. */
  private refusedAt: { limit: number; at: number } | undefined;
  /** When a failure last cut the limit. */
  private failureCutAt = Number.NEGATIVE_INFINITY;
  /** Whether the last round judged saw a queue (a cut needs two in a row). */
  private queuedLastRound = false;

  constructor(options: PaceOptions = {}, now = 0, state?: PaceState) {
    this.fixed = options.fixedConcurrency;
    this.maxConcurrency = Math.max(1, options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY);
    this.maxRate = options.maxRate;
    const initial = Math.min(this.maxConcurrency, options.initialConcurrency ?? INITIAL_CONCURRENCY);
    this.state = state
      ? {
          ...state,
          limit: Math.min(state.limit, this.maxConcurrency),
          // Time between two executions (Apps Script) does not count toward the rate's climb back
          // (CUBIC's time since the cut): nothing was sent to show the service took more.
          cutAt: state.cutAt + Math.max(0, now - Math.max(state.nextStartAt, state.cutAt)),
        }
      : {
          limit: initial,
          slowStart: true,
          rate: undefined,
          rateMax: 0,
          climbSeconds: 0,
          cutAt: now,
          nextStartAt: now,
          latency: undefined,
          baseline: undefined,
          baselineSince: now,
          change: this.fixed === undefined ? 'start' : 'fixed',
          changedAt: now,
        };
    this.round = newRound(now, this.state.limit);
    this.baseline = new Baseline(this.state);
  }

  /** Whether the user fixed the number in flight (the controller then only counts). */
  get isFixed(): boolean {
    return this.fixed !== undefined;
  }

  /** Requests that may be in flight now. */
  get concurrency(): number {
    const limit = Math.min(this.state.limit, this.baseline.probeLimit ?? Number.POSITIVE_INFINITY);
    return this.fixed ?? (this.window.probing ? 1 : Math.max(1, Math.floor(limit)));
  }

  /** Requests that may start per second now, or undefined when only the concurrency limits them. */
  get ratePerSecond(): number | undefined {
    const { rate } = this.state;
    if (rate === undefined || this.fixed !== undefined) return this.maxRate;
    return this.maxRate === undefined ? rate : Math.min(rate, this.maxRate);
  }

  /** Whether another attempt may go on the wire now (with a fixed number, the caller keeps it). */
  hasRoom(): boolean {
    return this.fixed !== undefined || this.inFlight < this.concurrency;
  }

  /**
   * When the next request may start: now, or later when the run is paced by a rate. Nothing is
   * reserved: a cut in the rate applies at once to every request still waiting.
   */
  readyAt(now: number): number {
    const at = this.spacing() === undefined ? now : Math.max(now, this.state.nextStartAt);
    if (this.fixed !== undefined) return at;
    return Math.max(at, this.header.blockedUntil(now) ?? at, this.window.readyAt(now));
  }

  /** What an answer's headers said of the service's count (rate-headers.ts): once spent, sending waits for its reset. */
  rateLimitHint(hint: RateLimitHint): void {
    this.header.update(hint);
  }

  /** `count` attempts left for the service at once (a fetchAll round sends several). */
  sent(now: number, count = 1): void {
    this.inFlight += count;
    this.header.sent(now, count);
    const rate = this.spacing();
    if (rate !== undefined)
      this.state.nextStartAt = Math.max(now, this.state.nextStartAt) + (count * 1000) / rate;
    if (this.fixed !== undefined) return;
    this.window.sent(now);
    if (this.firstSendAt === undefined) {
      this.firstSendAt = now;
      this.measureFrom = Math.max(this.measureFrom, now);
    }
    this.sends.add(now, count);
    if (this.round.closedAt === undefined) this.round.cohort += count;
    this.round.peakInFlight = Math.max(this.round.peakInFlight, this.inFlight);
    // The limit is in use: all of it, or (while doubling, when sends are spaced over the round trip)
    // half of it, as RFC 7661 validates TCP's window.
    const used = this.state.slowStart ? this.concurrency / 2 : this.concurrency;
    if (this.inFlight >= used) this.round.saturated = true;
  }

  /**
   * An attempt sent at `sentAt` ended at `now`. Returns true when every request should wait as the
   * 429's Retry-After says (a fixed concurrency, or a service that answers nothing but 429).
   */
  ended(sentAt: number, now: number, signal: AttemptSignal, retryAfterMs?: number): boolean {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.header.ended(sentAt);
    if (signal === 'throttled') this.throttled++;
    if (this.fixed !== undefined) return signal === 'throttled';
    if (signal === 'throttled') return this.onThrottled(sentAt, now, retryAfterMs);
    this.refusedInARow = 0;
    // A round that sent nothing yet starts here: its cohort is what goes out from now on. (Its limit
    // to double from stays: answers of requests sent before it must not let slow start run on.)
    if (this.round.cohort === 0) this.round.startedAt = now;
    const round = this.round;
    // Only the round's own cohort is judged, and only once more than half of it is back: the first
    // answers to come back are the fast ones, so a round judged on them would take the service for
    // faster than it is (and a long tail for a queue).
    const member = inCohort(round, sentAt);
    if (member) round.closedAt ??= now;
    if (signal === 'answered') {
      // A probe answered: the count started again, and what goes from now on is measured.
      if (this.window.answered(sentAt)) this.measureFrom = sentAt;
      this.countSpent.answer(sentAt);
      this.answers.add(now);
      if (member) round.latencies.push(now - sentAt);
      this.growRate(now);
      // Slow start: one more in flight per answer, so the limit doubles over a round trip while the
      // extra requests go out one answer at a time, not all at once when a round ends. Only while
      // the round has had half of the limit as it now stands in flight (RFC 7661's validation): a
      // client too busy to send what it may (reading its file as it starts, on a loaded machine)
      // would otherwise let the limit run far ahead of what it has tried, then send all of it.
      // And no more than doubling per round judged: a round whose cohort takes long to judge (a
      // queue, a long tail) must not let the limit run on past twice what was tried.
      if (
        this.state.slowStart &&
        !round.holding &&
        round.peakInFlight >= this.concurrency / 2 &&
        this.state.limit < 2 * round.limitAtStart
      ) {
        this.grow(this.state.limit + 1, now);
      }
    } else {
      if (member) round.failed++;
      // Cut at once, not when the cohort is judged: an overloaded backend answers 503 at once, so
      // the place a refusal frees would be refilled and refused again many times a round trip
      // (half of the requests refused, in the simulation with a log-normal latency).
      this.cutForFailure(sentAt, now);
    }
    if (member) round.answers++;
    if (isJudged(round, now)) this.endRound(now);
    return false;
  }

  /**
   * Another run on this service and key ended while sending `ratePerSecond` (this run's share of it:
   * bulk's pace-neighbours.ts): what the service let it through is free now, and taken up at once.
   * Only by a run paced by a rate (a 429 showed one): without one, the service's rate was not what
   * held either run. The new rate is CUBIC's W_max with nothing to climb back (as a remembered
   * pace): a 429 cuts it as any other, if the share was more than the service lets through.
   */
  neighbourEnded(ratePerSecond: number, now: number): void {
    const s = this.state;
    if (this.fixed !== undefined || s.rate === undefined || !(ratePerSecond > 0)) return;
    const rate = s.rate + ratePerSecond;
    // As many more in flight: at the same latency, the faster rate needs them.
    s.limit = Math.min(this.maxConcurrency, (s.limit * rate) / s.rate);
    s.rate = rate;
    s.rateMax = rate;
    s.climbSeconds = 0;
    s.cutAt = now;
    this.changed('neighbour-ended', now);
  }

  reading(now: number): PaceReading {
    return {
      concurrency: this.concurrency,
      inFlight: this.inFlight,
      ratePerSecond: this.ratePerSecond,
      answersPerSecond: this.answers.countSince(now - this.windowMs()) / this.windowSeconds(now),
      change: this.isCapped(now) ? 'capped' : this.state.change,
      changedAt: this.state.changedAt,
    };
  }

  /**
   * Whether the user's maximum rate is what holds the pace: requests go out at (nearly) that rate
   * and no 429 has brought the rate under it. Then that is the reason to show ("held at the maximum
   * rate you set"), not "starting small" (issue 40), nor a latency that grew: while the sends keep
   * up with the maximum, the service is not what holds them back.
   */
  private isCapped(now: number): boolean {
    const { rate } = this.state;
    if (this.fixed !== undefined || this.maxRate === undefined) return false;
    if (rate !== undefined && rate < this.maxRate) return false;
    return this.sendRate(now) >= 0.8 * this.maxRate;
  }

  /**
   * Requests per second the sends are spaced by: the rate, once a 429 showed one. Before that, as
   * TCP paces its window (Linux: twice the window per round trip in slow start, 1.2 times after), so
   * that a growing limit does not send its new requests all at once: against a bucket, such a burst
   * draws many 429s before the first one comes back.
   */
  private spacing(): number | undefined {
    const s = this.state;
    const rate = this.ratePerSecond;
    if (this.fixed !== undefined) return rate;
    if (s.rate !== undefined || s.latency === undefined) return rate;
    const pacing = ((s.slowStart ? 2 : 1.2) * s.limit * 1000) / s.latency;
    return rate === undefined ? pacing : Math.min(rate, pacing);
  }

  /** What was learnt, to carry to another execution (Apps Script) with `new Pace(options, now, state)`. */
  snapshot(): PaceState {
    return { ...this.state };
  }

  /**
   * A 5xx, a timeout or a refused connection of a request sent at `sentAt`: the limit is cut by a
   * tenth, and the limit that drew it remembered. Once for every request that was in flight when
   * it was cut (as TCP's NewReno cuts once per window of losses): a refusal of a request sent
   * after the cut is a new signal.
   */
  private cutForFailure(sentAt: number, now: number): void {
    const s = this.state;
    s.slowStart = false;
    if (sentAt < this.failureCutAt) return;
    this.failureCutAt = now;
    // An overloaded backend answers 503 (or drops the connection) at once rather than queue: the
    // limit that drew it is remembered, and the pace stays just under it for a while instead of
    // bouncing off it every few round trips (as CUBIC holds near the window that lost a packet).
    this.refusedAt = { limit: s.limit, at: now };
    if (s.limit > 1) {
      s.limit = Math.max(1, s.limit * FAILURE_CUT);
      this.changed('slower-failing', now);
    }
    // What was in flight was sent under the old limit: the next round is judged on the new one.
    this.round = newRound(now, s.limit);
  }

  // A round trip is over: judge the latency and the failures its cohort saw.
  private endRound(now: number): void {
    const round = this.round;
    this.round = newRound(now, this.state.limit);
    const s = this.state;
    // A failure cut the limit when it came (cutForFailure): the round's latencies say nothing more.
    if (round.failed > 0) return;
    const median = cohortMedian(round.latencies, round.cohort);
    if (median === undefined || median <= 0) return;
    this.noise.addRound(round.latencies, median);
    s.latency = s.latency === undefined ? median : s.latency * 0.7 + median * 0.3;
    const step = this.baseline.step(round, s.latency, s.limit, s.slowStart, now);
    // The service itself got slower (not our queue): find the pace afresh, doubling.
    if (step === 'slower-service') s.slowStart = true;
    if (step !== 'judge') return;
    const baseline = this.baseline.value as number;
    // In slow start each round's own median: the limit doubles per round, so waiting for the
    // smoothed figure would double it once too often.
    const latency = s.slowStart ? median : s.latency;
    const limit = s.limit;
    // A latency within what the noise of a cohort's median explains is no queue.
    const noise = this.noise.tolerance(round.cohort, this.baseline.answers);
    const queue = Math.max(0, limit * (1 - (baseline * noise) / latency));
    const log = Math.log10(Math.max(limit, 1));
    const alpha = Math.max(2, 3 * log);
    const beta = Math.max(4, 6 * log);
    const queueing = queue > beta || (s.slowStart && queue > alpha);
    // Two round trips in a row, unless the queue is far past beta: over hundreds of rounds a long
    // tail puts one median past any bound now and then, and a cut for nothing costs seconds. (Slow
    // start doubles once per round judged, so its one round more is one doubling, cut at once.)
    const confirmed = queueing && (this.queuedLastRound || queue > 2 * beta);
    this.queuedLastRound = queueing;
    // Not confirmed yet: slow start holds where it is for the round that will say.
    if (queueing && !confirmed && s.slowStart) this.round.holding = true;
    if (confirmed) {
      const leavingSlowStart = s.slowStart;
      s.slowStart = false;
      // Cuts that did not bring the latency down: measure the baseline anew instead.
      if (this.baseline.cut(median, limit)) return;
      // At most a quarter per round trip (a real queue is cut again at the next); leaving slow
      // start, straight to the estimate: the last doubling overshot by up to twice.
      const floor = leavingSlowStart ? 1 : limit * MAX_CUT;
      const next = Math.max(1, floor, Math.min(limit - 1, (limit * baseline) / latency + alpha));
      if (Math.floor(next) < Math.floor(limit)) this.changed('slower-queueing', now);
      s.limit = next;
    } else if (round.saturated && queue < alpha && !s.slowStart) {
      this.baseline.grew(limit + 1);
      this.grow(limit + 1, now);
    }
  }

  private grow(limit: number, now: number): void {
    let next = Math.min(this.maxConcurrency, limit);
    const refused = this.refusedAt;
    if (refused && now - refused.at < REFUSED_HOLD_MS) next = Math.min(next, Math.max(1, refused.limit - 1));
    if (refused && now - refused.at >= REFUSED_HOLD_MS) this.refusedAt = undefined;
    if (Math.floor(next) > Math.floor(this.state.limit)) this.changed('faster', now);
    this.state.limit = Math.max(this.state.limit, next);
  }

  private onThrottled(sentAt: number, now: number, retryAfterMs: number | undefined): boolean {
    const s = this.state;
    const pauseMs = retryAfterMs ?? DEFAULT_PAUSE_MS;
    this.countSpent.refusal(sentAt);
    // A probe refused: the count has not started again yet (window-reset.ts).
    if (retryAfterMs !== undefined && this.window.isProbe(sentAt)) {
      this.window.refused(sentAt, now, retryAfterMs);
      return false;
    }
    s.slowStart = false;
    this.throttleLatency = now - sentAt;
    // Dated when sent: a 429 says the service refused what was sent then.
    this.refusals.add(sentAt);
    const window = this.windowMs();
    // What the service let through (requests sent, less those refused) since the last cut, if that
    // was recent: about its rate, once its bucket is empty. Else over the last window, which may
    // include what the bucket's burst gave: the first cut is deeper for it. Never over a pause.
    const since = Math.max(
      s.rate === undefined ? now - window : Math.max(s.cutAt, now - window),
      this.measureFrom,
    );
    const sent = this.sends.countSince(since);
    const letThrough = Math.max(0, sent - this.refusals.countSince(since));
    // Everything sent lately was refused (three at least): the service refuses everything (its
    // allowance is used up). That is no pace to find: every request waits as Retry-After says, the rate is left as
    // it was, and what is sent after the pause is measured afresh.
    if (sent >= MIN_SENT && letThrough === 0) {
      if (sentAt >= this.pausedAt) this.refusedInARow++;
      const counted = this.countSpent.paused(now);
      this.pausedAt = now;
      this.measureFrom = now + pauseMs;
      this.changed('paused', now);
      // A count used up, with a Retry-After to its reset: the reset is probed for (window-reset.ts)
      // rather than waited out whole, and the next count spent at full pace (it says nothing of a
      // rate). Else every request waits the pause out.
      if (retryAfterMs === undefined || !counted) return true;
      this.window.refused(sentAt, now, retryAfterMs);
      s.rate = undefined;
      return false;
    }
    // One cut per round trip of a 429 (the 429s of requests sent before the cut say nothing new),
    // and only once enough was sent to judge by.
    if (now - this.lastThrottleAt < Math.max(100, 2 * this.throttleLatency)) return false;
    if (sent < MIN_SENT) return false;
    this.lastThrottleAt = now;
    cutRate(s, sent, letThrough, Math.max(now - since, 100) / 1000, now);
    this.changed('slower-throttled', now);
    return false;
  }

  /** An answer lets the rate grow back (rate-estimate.ts), once a 429 has set one. */
  private growRate(now: number): void {
    const s = this.state;
    if (s.rate === undefined) return;
    // Never far beyond what is being sent: a rate nobody uses would let a burst through later.
    const ceiling = Math.max(1, 1.5 * this.sendRate(now));
    const seconds = Math.min(1, Math.max(0, now - (this.grownAt ?? now)) / 1000);
    this.grownAt = now;
    const next = grownRate(s, s.rate, now, ceiling, seconds);
    if (next > s.rate) {
      if (s.rate < s.rateMax && next >= s.rateMax) this.changed('faster', now);
      s.rate = next;
    }
  }

  /** Requests started per second over the last window. */
  private sendRate(now: number): number {
    return this.sends.countSince(now - this.windowMs()) / this.windowSeconds(now);
  }

  /** The window's length in seconds, or less at the start of the run (at least 0.1 s). */
  private windowSeconds(now: number): number {
    const since = Math.max(now - this.windowMs(), this.firstSendAt ?? now);
    return Math.max(now - since, 100) / 1000;
  }

  private windowMs(): number {
    return Math.min(MAX_WINDOW_MS, Math.max(WINDOW_MS, 2 * (this.state.baseline ?? 0)));
  }

  private changed(change: PaceChange, now: number): void {
    this.state.change = change;
    this.state.changedAt = now;
  }
}
