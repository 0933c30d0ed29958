// Sends many requests synchronously, the Apps Script way: UrlFetchApp.fetchAll rounds (requests
// of a round run concurrently), core's retry policy between rounds with Utilities.sleep, and a
// deadline so that a call stays inside the platform's time limit. Core has no timers; this is
// the synchronous driver of its pure decideRetry.
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
  type RetryPolicy,
  readResponse,
} from '@enrich/core';

export interface Job {
  /** Names the answer in the result (the cache key). */
  readonly id: string;
  readonly request: HttpRequest;
}

export interface SendOptions {
  /** No round starts, and no wait ends, after this time (ms since the epoch). */
  readonly deadline: number;
  /** Requests per fetchAll round at most; halved after a 429. */
  readonly parallel: number;
  readonly policy?: RetryPolicy;
  /** Told after each round with the jobs that finished in it, so that answers are kept at once. */
  readonly onAnswers?: (answers: readonly (readonly [string, Outcome])[]) => void;
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
  /** The round size at the end, to carry over to the next call. */
  readonly parallel: number;
  readonly attempts: number;
}

interface Pending {
  readonly job: Job;
  attempts: number;
  firstAt: number;
  notBefore: number;
}

export const MAX_PARALLEL = 40;

export function sendAll(op: Operation, jobs: readonly Job[], options: SendOptions): SendReport {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const outcomes = new Map<string, Outcome>();
  let queue: Pending[] = jobs.map((job) => ({ job, attempts: 0, firstAt: 0, notBefore: 0 }));
  let parallel = Math.max(1, Math.min(MAX_PARALLEL, Math.floor(options.parallel)));
  let spent = 0;
  let attempts = 0;
  // After a 429 the whole key is paused, not only the request that got it.
  let pauseUntil = 0;
  const lastErrors = new Map<string, Outcome>();

  while (queue.length > 0) {
    let now = Date.now();
    const readyAt = Math.max(pauseUntil, Math.min(...queue.map((p) => p.notBefore)));
    if (readyAt > now) {
      if (readyAt > options.deadline) break;
      Utilities.sleep(readyAt - now);
      now = Date.now();
    }
    if (now > options.deadline) break;
    const round = queue.filter((p) => p.notBefore <= now).slice(0, parallel);
    const responses = readFetched(round.map((p) => p.job.request));
    const finished: [string, Outcome][] = [];
    const stopped = new Set<Pending>();
    let limited = false;
    const after = Date.now();
    round.forEach((pending, i) => {
      const response = responses[i];
      const outcome =
        response === undefined || 'failure' in response
          ? networkError(pending.job.request.url, response?.failure ?? 'no response')
          : readResponse(op, response);
      pending.attempts++;
      attempts++;
      if (pending.firstAt === 0) pending.firstAt = now;
      // Only errors are retried: a paid answer, readable or not, is never bought again on its own.
      if (outcome.kind === 'error') {
        if (outcome.error.code === 'allowance') limited = true;
        const decision = decideRetry(
          pending.attempts,
          after - pending.firstAt,
          outcome.error,
          policy,
          Math.random,
        );
        if (decision.retry) {
          lastErrors.set(pending.job.id, outcome);
          pending.notBefore = after + decision.delayMs;
          if (outcome.error.code === 'allowance') pauseUntil = Math.max(pauseUntil, pending.notBefore);
          // A retry that could not start before the deadline leaves the request unfinished, for the
          // next call to take up, rather than reporting a failure that waiting would have cured.
          if (pending.notBefore > options.deadline) stopped.add(pending);
          return;
        }
      }
      if (isPaid(outcome)) spent++;
      outcomes.set(pending.job.id, outcome);
      finished.push([pending.job.id, outcome]);
    });
    queue = queue.filter((p) => !outcomes.has(p.job.id) && !stopped.has(p));
    parallel = limited ? Math.max(1, Math.floor(parallel / 2)) : Math.min(MAX_PARALLEL, parallel + 1);
    if (finished.length > 0) options.onAnswers?.(finished);
  }
  return {
    outcomes,
    unfinished: jobs.filter((j) => !outcomes.has(j.id)).map((j) => j.id),
    lastErrors,
    spent,
    parallel,
    attempts,
  };
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
