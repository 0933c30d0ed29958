// Sheets runs many custom functions at once (=PHONELOOKUP(A2) filled down is one execution per
// cell, and two range formulas over the same column run side by side), and each sees the same
// cache. Without care, two of them asking for the same input both pay. A formula's purchase goes
// through three steps (fetchOnce):
// 1. claim: under the document lock, each input is answered already (the cache), or being bought
//    by another execution (a live "in flight" mark, in-flight.ts), or claimed by this one (marked).
//    Many formulas at once queue for the lock, so it is held for one cache read and one write (the
//    marks, the answers and the allowance's count together, for all the inputs at once), what can be
//    told without it (answers, live marks) is read before, and a claim waits while a round would
//    still fit after it (timed by the formulas that went before: ROUND_KEY);
// 2. buy: this execution buys what it claimed in fetchAll rounds, each round only if it fits in the
//    time left (execution-time.ts); after every round, under the lock, it saves the answers and
//    renews the marks of what it still has to buy (until it stops at 30 s: a mark must not lapse
//    while its requests are out; renewed, since the cache may drop them) and removes those of what
//    it answered, in the same lock; at the end it removes the marks left (an input it had no time
//    for is then free for another to take);
// 3. wait: for the inputs others are buying, it polls the cache while their marks are live. An
//    input whose mark is gone without an answer (its buyer gave up, got an error that cost
//    nothing, or was stopped) it claims and buys itself if a round still fits. When its own time
//    is up, what others are still buying is answered "still being fetched", unpaid: it never buys
//    what another execution is fetching.
// A mark lasts until its buyer stops (30 s): a round's answers can take longer than any estimate,
// and a mark that lapsed while its requests are still out would let another formula buy them again.
// Every purchase is claimed against the payer's allowance in the same step, under the same lock
// (allowance/ledger.ts), and what was not spent is given back after: formulas at the same moment
// never together pass it. Inputs past the allowance are not bought (`held`). Without the lock
// (LockService refused it, or it stayed busy), nothing can be claimed, so an execution waits for the
// inputs others marked and buys nothing else.
import { type Operation, type Outcome, Pace } from '@enrich/core/universal';
import { type AllowanceGate, type Held, LEDGER_KEYS } from '../allowance/ledger.js';
import {
  answerItems,
  answerKeys,
  CACHE_TTL_SECONDS,
  cacheAnswers,
  outcomesFrom,
  readCachedOutcomes,
} from '../answers/document-cache.js';
import { underDocumentLock } from '../document-lock.js';
import { type ExecutionTime, UNTIMED_ROUND_MS } from '../execution-time.js';
import { logText } from '../key/scrub.js';
import { type Job, MAX_PARALLEL, type RoundAnswer, sendAll } from '../send.js';
import { markKeys, marksFrom, readMarks } from './in-flight.js';

/**
 * The lock guards two cache calls at a time, but many formulas at once queue for it: a claim waits
 * for it as long as a round would still fit afterwards; saving after a round waits less, then saves
 * without it.
 */
const LOCK_WAIT_MS = 3_000;
const POLL_MS = 500;
/**
 * The longest round the formulas running lately timed, [ms, when], so that a formula that has not
 * timed one yet need not assume a slow day (UNTIMED_ROUND_MS): with many formulas queued for the
 * lock, it may then wait for its claim for most of its 30 s. Counted for 10 minutes after it was put.
 */
const ROUND_KEY = 'pace:round';
const ROUND_FOR_MS = 600_000;
/** A claim waits for the lock in slices of this long, reading the round time others put between them. */
const CLAIM_SLICE_MS = 2_000;
type Cache = GoogleAppsScript.Cache.Cache;

export interface PurchaseResult {
  /** Outcomes by job id: fetched here, or bought by another execution at the same moment. */
  readonly outcomes: ReadonlyMap<string, Outcome>;
  /** Job ids another execution was still buying when this one had to answer. */
  readonly elsewhere: ReadonlySet<string>;
  /** Job ids not bought because of the allowance (or no lock to claim it under), and why. */
  readonly held: ReadonlyMap<string, Held>;
}

/**
 * What `jobs` came to: answers, and those still being bought elsewhere; the rest had no time. The
 * purchase's state (what it has, what it waits for) and its three steps.
 */
export function fetchOnce(
  op: Operation,
  cache: Cache | null,
  jobs: readonly Job[],
  time: ExecutionTime,
  gate: AllowanceGate,
): PurchaseResult {
  const outcomes = new Map<string, Outcome>();
  const elsewhere = new Set<string>();
  const held = new Map<string, Held>();
  /** Inputs another execution is buying. */
  let waiting: Job[] = [];

  /**
   * Step 1: answered, someone else's (waiting), or mine, claimed against the allowance (the rest
   * held); `marked` when mine carry this execution's marks. What can be told without the lock is
   * (answers, live marks: read only); the lock is held for one read and one write of the cache,
   * the marks and the allowance's count together, for all the inputs at once.
   */
  const claim = (list: readonly Job[]): { mine: Job[]; marked: boolean } => {
    if (list.length === 0) return { mine: [], marked: false };
    if (!cache) return { mine: granted([...list]), marked: false };
    gate.limits(); // who pays, found before the lock (a slow call when the ledger does not say)
    const sort = (jobs: readonly Job[], read: Readonly<Record<string, string>>) => {
      const ids = jobs.map((j) => j.id);
      for (const [id, outcome] of outcomesFrom(read, ids)) outcomes.set(id, outcome);
      const marks = marksFrom(cache, read, ids);
      const now = Date.now();
      const free: Job[] = [];
      for (const job of jobs) {
        if (outcomes.has(job.id)) continue;
        if (marks.live(job.id, now)) waiting.push(job);
        else free.push(job);
      }
      return { free, marks, now };
    };
    const keysOf = (jobs: readonly Job[]) => {
      const ids = jobs.map((j) => j.id);
      return [...answerKeys(ids), ...markKeys(ids)];
    };
    const first = cache.getAll([...keysOf(list), ROUND_KEY]);
    const lately = roundLately(first[ROUND_KEY]);
    if (quicker(lately)) time.roundTook(lately);
    const { free } = sort(list, first);
    if (free.length === 0) return { mine: [], marked: false };
    const locked = claimLock(cache, time, () => {
      const read = cache.getAll([...keysOf(free), ...LEDGER_KEYS]);
      const sorted = sort(free, read);
      if (sorted.free.length === 0) return [];
      const { granted: n, put } = gate.claimFrom(read, sorted.free.length);
      const mine = sorted.free.slice(0, n);
      for (const job of sorted.free.slice(n)) held.set(job.id, gate.held() ?? 'busy');
      for (const job of mine) sorted.marks.set(job.id, time.stopsAt);
      if (mine.length > 0) {
        const marks = splitMarks(sorted.marks.items(sorted.now), read);
        cache.putAll({ ...marks.put, ...put }, CACHE_TTL_SECONDS);
        if (marks.remove.length > 0) cache.removeAll(marks.remove);
      }
      return mine;
    });
    // No lock: nothing can be claimed (a mark written without it could erase another execution's).
    if (!locked) for (const job of free) held.set(job.id, 'busy');
    return locked ? { mine: locked.value, marked: true } : { mine: [], marked: false };
  };

  /** The jobs the allowance grants, in order; the others are held, with why (no cache: no marks). */
  const granted = (jobs: Job[]): Job[] => {
    const n = gate.claim(jobs.length);
    for (const job of jobs.slice(n)) held.set(job.id, gate.held() ?? 'busy');
    return jobs.slice(0, n);
  };

  /** My marks not yet removed: an input is unmarked when its answer is saved. */
  const marked = new Set<string>();

  /**
   * Under one lock, one read and one write: a round's answers into the cache, the marks of what is
   * left renewed, those of what was answered removed.
   */
  const afterRound = (answers: readonly RoundAnswer[], pending: readonly string[]) => {
    if (!cache) return;
    const done = answers.map(([id]) => id).filter((id) => marked.has(id));
    const save = () => {
      const read = cache.getAll([
        ...answerKeys(answers.map(([id]) => id)),
        ...markKeys([...done, ...pending]),
        ROUND_KEY,
      ]);
      const marks = marksFrom(cache, read, [...done, ...pending]);
      for (const id of pending) marks.set(id, time.stopsAt);
      for (const id of done) marks.remove(id);
      const now = Date.now();
      const split = splitMarks(marks.items(now), read);
      const put = { ...answerItems(read, answers), ...split.put };
      const longest = Math.max(time.longestRoundMs(), roundLately(read[ROUND_KEY], now));
      if (longest > 0) put[ROUND_KEY] = JSON.stringify([longest, now]);
      if (Object.keys(put).length > 0) cache.putAll(put, CACHE_TTL_SECONDS);
      if (split.remove.length > 0) cache.removeAll(split.remove);
      for (const id of done) marked.delete(id);
    };
    // Without the lock the answers are saved all the same, at once, without it.
    try {
      if (!underDocumentLock(time.lockWaitMs(LOCK_WAIT_MS), save)) cacheAnswers(cache, answers, 0);
    } catch (error) {
      // The round is paid for: a cache that fails now (a quota, a service error) must not take its
      // answers with it. They are kept once more, and whatever the cache does, this execution
      // returns them (they are in sendAll's report); unkept, a recalculation may buy them again.
      try {
        cacheAnswers(cache, answers, 0);
      } catch {
        // Shown in the cells, not kept.
      }
      console.warn(logText(`Could not keep a round's answers: ${(error as Error).message}`));
    }
  };

  /**
   * Step 2: buys in rounds that fit; after each, saves the answers and renews the marks; then
   * unmarks what it did not buy, and gives back to the allowance what it claimed and did not spend.
   */
  const buy = ({ mine, marked: isMarked }: { mine: readonly Job[]; marked: boolean }) => {
    if (mine.length === 0) return;
    if (isMarked) for (const job of mine) marked.add(job.id);
    let spent: number | undefined;
    try {
      const report = sendAll(op, mine, {
        deadline: time.endBy,
        time,
        // Rounds of 40 from the start (a formula has 30 s, no time to grow); a 429 then paces them.
        pace: new Pace({ initialConcurrency: MAX_PARALLEL, maxConcurrency: MAX_PARALLEL }, Date.now()),
        afterRound: (answers, pending) => afterRound(answers, isMarked ? pending : []),
      });
      for (const [id, outcome] of report.outcomes) outcomes.set(id, outcome);
      spent = report.spent;
    } finally {
      // A purchase that failed part-way is not given back: the count runs high, the safe side.
      if (spent !== undefined) gate.giveBack(mine.length - spent);
      // Without the lock the marks expire, at most with this execution.
      const left = mine.map((j) => j.id).filter((id) => marked.has(id));
      if (cache && left.length > 0) {
        underDocumentLock(time.lockWaitMs(LOCK_WAIT_MS), () => {
          const marks = readMarks(cache, left);
          for (const id of left) marks.remove(id);
          marks.write(Date.now());
          for (const id of left) marked.delete(id);
        });
      }
    }
  };

  /** Step 3: waits while others' marks are live; takes over inputs they gave up if a round fits. */
  const waitForOthers = () => {
    while (cache && waiting.length > 0) {
      const ids = waiting.map((j) => j.id);
      // Marks first, then answers: a buyer saves an answer before it removes its mark, so a mark
      // gone with no answer means the buyer gave up on that input.
      const marks = readMarks(cache, ids);
      const found = readCachedOutcomes(cache, ids);
      for (const [id, outcome] of found) outcomes.set(id, outcome);
      const now = Date.now();
      const left = waiting.filter((j) => !found.has(j.id));
      const given = left.filter((j) => !marks.live(j.id, now));
      waiting = left.filter((j) => marks.live(j.id, now));
      if (given.length > 0 && time.roundFits(now)) buy(claim(given));
      if (waiting.length === 0) return;
      if (Date.now() + POLL_MS > time.endBy) break;
      Utilities.sleep(POLL_MS);
    }
    for (const job of waiting) elsewhere.add(job.id);
  };

  buy(claim(jobs));
  waitForOthers();
  return { outcomes, elsewhere, held };
}

/**
 * Runs `work` under the document lock for a claim: waits for it while a round would still fit after
 * it (a claim that gives up buys nothing), in slices; between them, until this execution has timed a
 * round of its own, it reads the round time that formulas that got the lock before it put.
 */
function claimLock<T>(cache: Cache, time: ExecutionTime, work: () => T): { readonly value: T } | undefined {
  for (;;) {
    const asked = Date.now();
    const wait = Math.max(0, time.endBy - asked - time.expectedRoundMs());
    const done = underDocumentLock(Math.min(wait, CLAIM_SLICE_MS), work);
    // Refused at once (LockService said no without waiting): asking again would not help.
    if (done || wait <= CLAIM_SLICE_MS || Date.now() - asked < CLAIM_SLICE_MS) return done;
    if (time.longestRoundMs() === 0) {
      const lately = roundLately(cache.get(ROUND_KEY) ?? undefined);
      if (quicker(lately)) time.roundTook(lately);
    }
  }
}

/**
 * Whether others' round time makes a shorter estimate than an untimed round's: only then is it taken
 * (a longer one would stop a formula from trying a round that may well fit, as it did before).
 */
function quicker(lately: number): boolean {
  return lately > 0 && 2 * lately < UNTIMED_ROUND_MS;
}

/** The mark items to put, and the emptied ones to remove (an empty item not read stays absent). */
function splitMarks(items: Record<string, string>, read: Readonly<Record<string, string>>) {
  const put: Record<string, string> = {};
  const remove: string[] = [];
  for (const [key, text] of Object.entries(items)) {
    if (text !== '{}') put[key] = text;
    else if (read[key] !== undefined) remove.push(key);
  }
  return { put, remove };
}

/** The round time the formulas running lately put (ROUND_KEY), or 0 when none is recent or readable. */
function roundLately(text: string | undefined, now = Date.now()): number {
  try {
    const [ms, at] = JSON.parse(text ?? 'null') as [unknown, unknown];
    return typeof ms === 'number' && ms > 0 && typeof at === 'number' && now - at < ROUND_FOR_MS ? ms : 0;
  } catch {
    return 0;
  }
}
