// Sheets runs many custom functions at once (=PHONELOOKUP(A2) filled down is one execution per
// cell), and each sees the same empty cache. Without care, two cells asking for the same input both
// pay. So before sending, an execution claims its requests under the document lock with an
// "in flight" marker in the document cache; an execution that finds a marker waits (polling the
// cache, within a bounded time) for the answer the other one is buying, and pays itself only if
// the wait runs out or the other gave up. Without a lock (LockService refused, or busy for too long)
// it pays for what it lacks: never worse than no coordination.
import { type Operation, type Outcome, Pace } from '@enrich/core/universal';
import { cacheAnswers, readCachedOutcomes } from '../answers/document-cache.js';
import { spread } from '../answers/paid-answer.js';
import { type Job, MAX_PARALLEL, sendAll } from '../send.js';

const MARK = 'inflight:';
/**
 * Markers are packed into a few cache items (id → expiry), not one item per input: a 3,000-row
 * formula would otherwise add 3,000 items and push the cache past its 1,000-item cap, evicting.
 */
const MARK_ITEMS = 16;
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
      // Rounds of 40 from the start (a formula has 30 s, no time to grow); a 429 then paces them.
      pace: new Pace({ initialConcurrency: MAX_PARALLEL, maxConcurrency: MAX_PARALLEL }, Date.now()),
      onAnswers: (answers) => cacheAnswers(cache, answers),
    });
    for (const [id, outcome] of report.outcomes) outcomes.set(id, outcome);
  };
  try {
    if (claim.mine.length > 0) send(claim.mine);
  } finally {
    if (cache && claim.mine.length > 0) releaseMarks(cache, claim.mine);
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
  const held = lock?.hasLock() === true;
  if (lock === null || (!held && !lock.tryLock(LOCK_WAIT_MS))) return payAll;
  try {
    const ids = jobs.map((j) => j.id);
    const answered = readCachedOutcomes(cache, ids);
    const marks = readMarks(cache, ids);
    const now = Date.now();
    const mine: Job[] = [];
    const waiting: Job[] = [];
    for (const job of jobs) {
      if (answered.has(job.id)) continue;
      const item = marks.get(markKey(job.id)) as Marks;
      if ((item[job.id] ?? 0) > now) waiting.push(job);
      else {
        mine.push(job);
        item[job.id] = now + MARK_SECONDS * 1000;
      }
    }
    if (mine.length > 0) writeMarks(cache, marks, now);
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
    const marks = readMarks(
      cache,
      left.map((j) => j.id),
    );
    const found = readCachedOutcomes(
      cache,
      left.map((j) => j.id),
    );
    for (const [id, outcome] of found) answered.set(id, outcome);
    left = left.filter((j) => !found.has(j.id));
    const now = Date.now();
    const stillFetched = left.filter((j) => (marks.get(markKey(j.id))?.[j.id] ?? 0) > now);
    if (stillFetched.length === 0 || Date.now() + POLL_MS > until) return { answered, left };
    Utilities.sleep(POLL_MS);
  }
}

/** Id → time (ms) until which another execution is fetching it. */
type Marks = Record<string, number>;

function markKey(id: string): string {
  return MARK + (spread(id) % MARK_ITEMS);
}

/** The marker items covering `ids` (an absent or unreadable item is empty). */
function readMarks(cache: Cache, ids: readonly string[]): Map<string, Marks> {
  const keys = [...new Set(ids.map(markKey))];
  const texts = cache.getAll(keys);
  const out = new Map<string, Marks>();
  for (const key of keys) {
    let marks: Marks = {};
    try {
      const parsed = JSON.parse(texts[key] ?? '{}') as Marks;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) marks = parsed;
    } catch {
      // unreadable: no markers
    }
    out.set(key, marks);
  }
  return out;
}

/** Writes marker items back without expired markers; an empty item is removed. */
function writeMarks(cache: Cache, items: ReadonlyMap<string, Marks>, now: number): void {
  const put: Record<string, string> = {};
  const empty: string[] = [];
  for (const [key, marks] of items) {
    const live = Object.fromEntries(Object.entries(marks).filter(([, until]) => until > now));
    if (Object.keys(live).length === 0) empty.push(key);
    else put[key] = JSON.stringify(live);
  }
  if (Object.keys(put).length > 0) cache.putAll(put, MARK_SECONDS);
  if (empty.length > 0) cache.removeAll(empty);
}

/** Removes this execution's markers, under the lock; without it they simply expire (30 s). */
function releaseMarks(cache: Cache, jobs: readonly Job[]): void {
  const lock = LockService.getDocumentLock();
  const held = lock?.hasLock() === true;
  if (lock === null || (!held && !lock.tryLock(LOCK_WAIT_MS))) return;
  try {
    const ids = jobs.map((j) => j.id);
    const marks = readMarks(cache, ids);
    for (const id of ids) delete (marks.get(markKey(id)) as Marks)[id];
    writeMarks(cache, marks, Date.now());
  } finally {
    if (!held) lock.releaseLock();
  }
}
