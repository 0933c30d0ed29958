// Sends many requests synchronously, the Apps Script way: UrlFetchApp.fetchAll rounds (requests
// of a round run concurrently), sized and spaced by core's pace controller (Pace: as many at once as
// the service answers without slowing down, and, once it answered 429, rounds spaced to stay just
// under its rate), core's retry policy between rounds with Utilities.sleep, and the execution's time
// (execution-time.ts): a round starts only if it can end before the platform stops the execution,
// since its requests are paid for when they leave. Core has no timers; this is the synchronous
// driver of its pure Pace and decideRetry.
import {
  DEFAULT_RETRY_POLICY,
  decideRetry,
  type HttpRequest,
  type HttpResponse,
  isPaid,
  lowerCaseHeaders,
  networkError,
  type Operation,
  type Outcome,
  type Pace,
  type PaceState,
  type RetryPolicy,
  readResponse,
} from '@enrich/core/universal';
import type { ExecutionTime } from './execution-time.js';

export interface Job {
  /** Names the answer in the result (the cache key). */
  readonly id: string;
  readonly request: HttpRequest;
  /** The people its request carries (answers/paid-answer.ts, whoOf): kept with its answer. */
  readonly who?: readonly string[];
}

/** A job's answer as afterRound tells it: id, outcome, and the people to keep with it. */
export type RoundAnswer = readonly [string, Outcome, { readonly who?: readonly string[] }];

export interface SendOptions {
  /** No round starts, and no wait ends, after this time (ms since the epoch). */
  readonly deadline: number;
  /** The execution's time: a round starts only if the longest round so far still fits in it. */
  readonly time: ExecutionTime;
  /** Sizes and spaces the rounds (at most MAX_PARALLEL at once); told how every request ended. */
  readonly pace: Pace;
  readonly policy?: RetryPolicy;
  /**
   * Told after every round with the jobs that finished in it (so that answers are kept at once) and
   * the ids of those still to send.
   */
  readonly afterRound?: (answers: readonly RoundAnswer[], pending: readonly string[]) => void;
}

export interface SendReport {
  /** Final outcomes by job id: answers, and errors that will not be retried. */
  readonly outcomes: Map<string, Outcome>;
  /** Jobs the deadline stopped before they had a final outcome. */
  readonly unfinished: readonly string[];
  /** The last error of each unfinished job that was tried at least once. */
  readonly lastErrors: ReadonlyMap<string, Outcome>;
  /** Outcomes that cost a transaction. */
  readonly spent: number;
  /** What the pace learnt, to carry over to the next call. */
  readonly pace: PaceState;
  readonly attempts: number;
  /** 429 answers received, and attempts that were retries. */
  readonly throttled: number;
  readonly retries: number;
}

interface Queued {
  readonly job: Job;
  attempts: number;
  firstAt: number;
  notBefore: number;
}

/** Requests per fetchAll round at most: the pace's maxConcurrency. */
export const MAX_PARALLEL = 40;

export function sendAll(op: Operation, jobs: readonly Job[], options: SendOptions): SendReport {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const outcomes = new Map<string, Outcome>();
  let queue: Queued[] = jobs.map((job) => ({ job, attempts: 0, firstAt: 0, notBefore: 0 }));
  const { pace } = options;
  let spent = 0;
  let attempts = 0;
  let throttled = 0;
  let retries = 0;
  // When the service refuses everything, every request waits, not only those that got the 429.
  let pauseUntil = 0;
  let roundMs = 0;
  const lastErrors = new Map<string, Outcome>();

  const { time } = options;
  // A round may start at `at` if the deadline has not passed and it would end in time.
  const mayStart = (at: number) => at <= options.deadline && time.roundFits(at);
  while (queue.length > 0) {
    let now = Date.now();
    const readyAt = Math.max(pauseUntil, pace.readyAt(now), Math.min(...queue.map((p) => p.notBefore)));
    if (readyAt > now) {
      if (!mayStart(readyAt)) break;
      Utilities.sleep(readyAt - now);
      now = Date.now();
    }
    if (!mayStart(now)) break;
    const round = queue.filter((p) => p.notBefore <= now).slice(0, roundSize(pace, roundMs));
    pace.sent(now, round.length);
    const responses = readFetched(round.map((p) => p.job.request));
    const finished: RoundAnswer[] = [];
    const stopped = new Set<Queued>();
    const after = Date.now();
    roundMs = after - now;
    time.roundTook(roundMs);
    round.forEach((queued, i) => {
      const response = responses[i];
      const outcome =
        response === undefined || 'failure' in response
          ? networkError(queued.job.request.url, response?.failure ?? 'no response')
          : readResponse(op, response);
      if (queued.attempts++ > 0) retries++;
      attempts++;
      if (queued.firstAt === 0) queued.firstAt = now;
      const status = response !== undefined && !('failure' in response) ? response.status : 0;
      if (status === 429) throttled++;
      const everyone = pace.ended(
        now,
        after,
        status === 429 ? 'throttled' : status >= 500 || status === 0 ? 'failed' : 'answered',
        outcome.kind === 'error' ? outcome.error.retryAfterMs : undefined,
      );
      // Only errors are retried: a paid answer, readable or not, is never bought again on its own.
      if (outcome.kind === 'error') {
        const decision = decideRetry(
          queued.attempts,
          after - queued.firstAt,
          outcome.error,
          policy,
          Math.random,
        );
        if (decision.retry) {
          lastErrors.set(queued.job.id, outcome);
          queued.notBefore = after + decision.delayMs;
          if (everyone) pauseUntil = Math.max(pauseUntil, queued.notBefore);
          // A retry that could not start before the deadline leaves the request unfinished, for the
          // next call to take up, rather than reporting a failure that waiting would have cured.
          if (!mayStart(queued.notBefore)) stopped.add(queued);
          return;
        }
      }
      if (isPaid(outcome)) spent++;
      outcomes.set(queued.job.id, outcome);
      finished.push([queued.job.id, outcome, { who: queued.job.who }]);
    });
    queue = queue.filter((p) => !outcomes.has(p.job.id) && !stopped.has(p));
    options.afterRound?.(
      finished,
      queue.map((p) => p.job.id),
    );
  }
  return {
    outcomes,
    unfinished: jobs.filter((j) => !outcomes.has(j.id)).map((j) => j.id),
    lastErrors,
    spent,
    pace: pace.snapshot(),
    attempts,
    throttled,
    retries,
  };
}

/**
 * Requests in the next round: as many as the pace allows in flight (40 at most) and, once it paces
 * by a rate, about what that rate lets through in one round's time: a round's requests all arrive
 * at once, so a round bigger than that would empty a rate limiter's bucket in one go.
 */
function roundSize(pace: Pace, lastRoundMs: number): number {
  const size = Math.min(MAX_PARALLEL, pace.concurrency);
  const rate = pace.ratePerSecond;
  if (rate === undefined) return size;
  return Math.max(1, Math.min(size, Math.floor((rate * Math.max(lastRoundMs, 100)) / 1000)));
}

/** One fetchAll round; a round that throws (no network, a quota) is a network failure of each request. */
export function readFetched(requests: readonly HttpRequest[]): (HttpResponse | { failure: unknown })[] {
  let raw: GoogleAppsScript.URL_Fetch.HTTPResponse[];
  try {
    raw = UrlFetchApp.fetchAll(requests.map(fetchParams));
  } catch (failure) {
    return requests.map(() => ({ failure }));
  }
  return raw.map((response) => ({
    status: response.getResponseCode(),
    headers: lowerCaseHeaders(response.getHeaders() as Record<string, string>),
    body: response.getContentText(),
  }));
}

/** UrlFetchApp's form of a request: JSON as a string payload with contentType, errors muted. */
export function fetchParams(request: HttpRequest): GoogleAppsScript.URL_Fetch.URLFetchRequest {
  const headers: Record<string, string> = {};
  let contentType = 'application/json';
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.toLowerCase() === 'content-type') contentType = value;
    else headers[name] = value;
  }
  return {
    url: request.url,
    method: 'post',
    contentType,
    headers,
    payload: request.body,
    muteHttpExceptions: true,
    followRedirects: false,
  };
}
