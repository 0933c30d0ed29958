// Sheets runs many custom functions at once (=PHONELOOKUP(A2) filled down is one execution per
// cell), and each sees the same empty cache. Without care, two cells asking for the same input both
// pay. So before sending, an execution claims its requests under the document lock with an
// "in flight" marker in the document cache; an execution that finds a marker waits (polling the
// cache, within a bounded time) for the answer the other one is buying, and pays itself only if
// the wait runs out or the other gave up. Without a lock (LockService refused, or busy for too long)
// it pays, as before: never worse than no coordination.
import type { Operation, Outcome } from '@enrich/core';
import { readAnswers, saveAnswers } from './answers.js';
import { type Job, MAX_PARALLEL, sendAll } from './send.js';

const MARK = 'inflight:';
/** A marker outlives no execution that could still be fetching: custom functions stop at 30 s. */
const MARK_SECONDS = 30;
const POLL_MS = 500;
/** The lock guards only a few cache calls; waiting longer for it means something is wrong. */
const LOCK_WAIT_MS = 3_000;

type Cache = GoogleAppsScript.Cache.Cache;

export interface Claim {
  /** Requests this execution fetches (it set their markers). */
  readonly mine: readonly Job[];
  /** Requests another execution is fetching now. */
  readonly waiting: readonly Job[];
  /** Answers that arrived since the caller looked in the cache. */
  readonly answered: ReadonlyMap<string, Outcome>;
}

export interface FetchOnceOptions {
  /** No fetch round starts after this time (ms). */
  readonly deadline: number;
  /** Waiting for other executions' answers ends at this time (ms); then this one pays. */
  readonly waitUntil: number;
}

/** Outcomes by job id: fetched here, or bought by another execution at the same moment. */
export function fetchOnce(
  op: Operation,
  cache: Cache | null,
  jobs: readonly Job[],
  options: FetchOnceOptions,
): Map<string, Outcome> {
  const claim = claimJobs(cache, jobs);
  const outcomes = new Map(claim.answered);
  const send = (list: readonly Job[]) => {
    const report = sendAll(op, list, {
      deadline: options.deadline,
      parallel: MAX_PARALLEL,
      onAnswers: (answers) => saveAnswers(cache, answers),
    });
    for (const [id, outcome] of report.outcomes) outcomes.set(id, outcome);
  };
  try {
    if (claim.mine.length > 0) send(claim.mine);
  } finally {
    if (cache && claim.mine.length > 0) cache.removeAll(claim.mine.map((j) => MARK + j.id));
  }
  if (claim.waiting.length > 0) {
    const waited = waitForOthers(cache as Cache, claim.waiting, options.waitUntil);
    for (const [id, outcome] of waited.answered) outcomes.set(id, outcome);
    if (waited.left.length > 0) send(waited.left);
  }
  return outcomes;
}

export function claimJobs(cache: Cache | null, jobs: readonly Job[]): Claim {
  const payAll: Claim = { mine: jobs, waiting: [], answered: new Map() };
  if (!cache || jobs.length === 0) return payAll;
  const lock = LockService.getDocumentLock();
  const held = lock !== null && lock.hasLock();
  if (lock === null || (!held && !lock.tryLock(LOCK_WAIT_MS))) return payAll;
  try {
    const ids = jobs.map((j) => j.id);
    const answered = readAnswers(cache, ids);
    const marks = cache.getAll(ids.map((id) => MARK + id));
    const mine: Job[] = [];
    const waiting: Job[] = [];
    for (const job of jobs) {
      if (answered.has(job.id)) continue;
      if (typeof marks[MARK + job.id] === 'string') waiting.push(job);
      else mine.push(job);
    }
    if (mine.length > 0) {
      const now = String(Date.now());
      cache.putAll(Object.fromEntries(mine.map((j) => [MARK + j.id, now])), MARK_SECONDS);
    }
    return { mine, waiting, answered };
  } finally {
    if (!held) lock.releaseLock();
  }
}

/** Polls the cache for the answers others are buying; `left` are those to pay for after all. */
function waitForOthers(
  cache: Cache,
  jobs: readonly Job[],
  until: number,
): { answered: Map<string, Outcome>; left: Job[] } {
  const answered = new Map<string, Outcome>();
  let left = [...jobs];
  for (;;) {
    // Markers first, then answers: the fetcher saves the answer before it removes its marker, so a
    // marker gone with no answer means the fetcher gave up (an error that cost nothing, or it died).
    const marks = cache.getAll(left.map((j) => MARK + j.id));
    const found = readAnswers(
      cache,
      left.map((j) => j.id),
    );
    for (const [id, outcome] of found) answered.set(id, outcome);
    left = left.filter((j) => !found.has(j.id));
    const stillFetched = left.filter((j) => typeof marks[MARK + j.id] === 'string');
    if (stillFetched.length === 0 || Date.now() + POLL_MS > until) return { answered, left };
    Utilities.sleep(POLL_MS);
  }
}
