// Sheets runs many custom functions at once (=PHONELOOKUP(A2) filled down is one execution per
// cell, and two range formulas over the same column run side by side), and each sees the same
// cache. Without care, two of them asking for the same input both pay. A formula's purchase goes
// through three steps (fetchOnce):
// 1. claim: under the document lock, each input is answered already (the cache), or being bought
//    by another execution (a live "in flight" mark, in-flight.ts), or claimed by this one (marked);
// 2. buy: this execution buys what it claimed in fetchAll rounds, each round only if it fits in the
//    time left (execution-time.ts); after every round, under the lock, it saves the answers and
//    renews the marks of what it still has to buy (until it stops at 30 s: a mark must not lapse
//    while its requests are out; renewed, since the cache may drop them); at the end it removes its
//    marks (an input it had no time for is then free for another to take);
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
import type { AllowanceGate, Held } from '../allowance/ledger.js';
import { cacheAnswers, readCachedOutcomes } from '../answers/document-cache.js';
import { underDocumentLock } from '../document-lock.js';
import type { ExecutionTime } from '../execution-time.js';
import { type Job, MAX_PARALLEL, sendAll } from '../send.js';
import { type MarkItems, readMarks } from './in-flight.js';

/**
 * The lock guards a few cache calls, but many formulas at once queue for it: a claim waits for it as
 * long as a round would still fit afterwards (a claim that gives up pays without coordination);
 * saving after a round waits less, then saves without it.
 */
const CLAIM_LOCK_WAIT_MS = 20_000;
const LOCK_WAIT_MS = 3_000;
const POLL_MS = 500;
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
   * held); `marked` when mine carry this execution's marks.
   */
  const claim = (list: readonly Job[]): { mine: Job[]; marked: boolean } => {
    if (list.length === 0) return { mine: [], marked: false };
    if (!cache) return { mine: granted([...list]), marked: false };
    const ids = list.map((j) => j.id);
    const sort = (marks: MarkItems, mark: boolean) => {
      for (const [id, outcome] of readCachedOutcomes(cache, ids)) outcomes.set(id, outcome);
      const now = Date.now();
      const free: Job[] = [];
      for (const job of list) {
        if (outcomes.has(job.id)) continue;
        if (marks.live(job.id, now)) waiting.push(job);
        else free.push(job);
      }
      if (!mark) {
        for (const job of free) held.set(job.id, 'busy');
        return [];
      }
      const mine = granted(free);
      for (const job of mine) marks.set(job.id, time.stopsAt);
      if (mine.length > 0) marks.write(now);
      return mine;
    };
    const locked = underDocumentLock(
      Math.max(0, time.lockWaitMs(CLAIM_LOCK_WAIT_MS) - time.expectedRoundMs()),
      () => sort(readMarks(cache, ids), true),
    );
    // No lock: wait for what others marked, buy the rest unmarked (a mark written without the lock
    // could erase another execution's).
    return locked
      ? { mine: locked.value, marked: true }
      : { mine: sort(readMarks(cache, ids), false), marked: false };
  };

  /** The jobs the allowance grants, in order; the others are held, with why. */
  const granted = (jobs: Job[]): Job[] => {
    const n = gate.claim(jobs.length);
    for (const job of jobs.slice(n)) held.set(job.id, gate.held() ?? 'busy');
    return jobs.slice(0, n);
  };

  /** Under one lock: a round's answers into the cache, the marks of what is left renewed. */
  const afterRound = (answers: readonly (readonly [string, Outcome])[], pending: readonly string[]) => {
    if (!cache) return;
    const save = () => {
      cacheAnswers(cache, answers);
      if (pending.length === 0) return;
      const marks = readMarks(cache, pending);
      for (const id of pending) marks.set(id, time.stopsAt);
      marks.write(Date.now());
    };
    // Without the lock the answers are saved all the same, at once, without it.
    if (!underDocumentLock(time.lockWaitMs(LOCK_WAIT_MS), save)) cacheAnswers(cache, answers, 0);
  };

  /**
   * Step 2: buys in rounds that fit; after each, saves the answers and renews the marks; then
   * unmarks, and gives back to the allowance what it claimed and did not spend.
   */
  const buy = ({ mine, marked }: { mine: readonly Job[]; marked: boolean }) => {
    if (mine.length === 0) return;
    let spent: number | undefined;
    try {
      const report = sendAll(op, mine, {
        deadline: time.endBy,
        time,
        // Rounds of 40 from the start (a formula has 30 s, no time to grow); a 429 then paces them.
        pace: new Pace({ initialConcurrency: MAX_PARALLEL, maxConcurrency: MAX_PARALLEL }, Date.now()),
        afterRound: (answers, pending) => afterRound(answers, marked ? pending : []),
      });
      for (const [id, outcome] of report.outcomes) outcomes.set(id, outcome);
      spent = report.spent;
    } finally {
      // A purchase that failed part-way is not given back: the count runs high, the safe side.
      if (spent !== undefined) gate.giveBack(mine.length - spent);
      // Without the lock the marks expire, at most with this execution.
      if (cache && marked) {
        underDocumentLock(time.lockWaitMs(LOCK_WAIT_MS), () => {
          const marks = readMarks(
            cache,
            mine.map((j) => j.id),
          );
          for (const job of mine) marks.remove(job.id);
          marks.write(Date.now());
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
