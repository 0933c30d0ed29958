// Executions running at the same time, as Sheets runs many single-cell custom functions at once.
// Node cannot suspend a synchronous script, so each execution is replayed: it runs until it would
// wait (Utilities.sleep, a fetch's latency, a busy lock, any call costing PAUSE_AFTER_MS or more),
// then stops; the scheduler runs whichever execution is earliest on its own clock; to continue one,
// its script runs again from the start in a fresh context, and every service call it already made
// returns the recorded result (no second side effect), until it reaches the new part. Scripts are
// deterministic given their service results (Date and Math.random are recorded or seeded), so a
// replay takes the same path. Granularity: calls cheaper than PAUSE_AFTER_MS run without letting
// others in, so two executions' views of the shared stores may be skewed by up to that much time.
import { RETRY_LOCK } from './execution.js';

export const PAUSE_AFTER_MS = 50;
/** How long a busy tryLock waits before looking again. */
const LOCK_POLL_MS = 10;

/** Thrown through the script to stop it where it would wait; any later service call throws it again. */
export class Pause {
  readonly message = 'paused by the test runtime (another execution runs meanwhile)';
  toString(): string {
    return this.message;
  }
}
const PAUSE = new Pause();

export class Journal {
  readonly entries: ({ name: string; value: unknown } | { name: string; error: unknown })[] = [];
  pos = 0;
  /** Set when a replay took another path than the recorded run (a bug of the model or a nondeterministic script). */
  diverged: string | null = null;
  /** Set when the execution stopped to wait: the time on its clock at which it can go on. */
  pausedUntil: number | null = null;
}

export interface JournalClock {
  now(): number;
}

/** Blocking calls: the execution waits for them, so others run meanwhile. */
const BLOCKING = new Set(['Utilities.sleep', 'UrlFetchApp.fetch', 'UrlFetchApp.fetchAll']);

/** A recorded, replayable view of a service object (and of the objects its methods return). */
export function journaled<T>(journal: Journal, clock: JournalClock, value: T, path: string): T {
  const call = (name: string, live: () => unknown): unknown => {
    if (journal.pausedUntil !== null) throw PAUSE;
    if (journal.pos < journal.entries.length) {
      const entry = journal.entries[journal.pos++] as (typeof journal.entries)[number];
      // A replay that takes another path than the first run would get wrong results: fail loudly.
      if (entry.name !== name) {
        journal.diverged = `replay diverged: ${name} where ${entry.name} was recorded`;
        throw new Error(journal.diverged);
      }
      if ('error' in entry) throw entry.error;
      return wrap(entry.value, name);
    }
    const before = clock.now();
    let result: unknown;
    try {
      result = live();
    } catch (error) {
      if (error === RETRY_LOCK) {
        journal.pausedUntil = clock.now() + LOCK_POLL_MS;
        throw PAUSE;
      }
      journal.entries.push({ name, error });
      journal.pos++;
      throw error;
    }
    journal.entries.push({ name, value: result });
    journal.pos++;
    if (BLOCKING.has(name) || clock.now() - before >= PAUSE_AFTER_MS) {
      journal.pausedUntil = clock.now();
      throw PAUSE;
    }
    return wrap(result, name);
  };
  const wrap = (v: unknown, at: string): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v))
      return v.some((x) => x !== null && typeof x === 'object') ? v.map((x) => wrap(x, at)) : v;
    if (!Object.values(v).some((x) => typeof x === 'function')) return v;
    return new Proxy(v as object, {
      get(target, prop) {
        const member = Reflect.get(target, prop);
        if (typeof member !== 'function') return wrap(member, at);
        const name = `${at.split('.')[0]}.${String(prop)}`;
        return (...args: unknown[]) => call(name, () => member.apply(target, args));
      },
    });
  };
  // The service's own name ("UrlFetchApp") names its calls, whatever object they are made on.
  return wrap(value, path) as T;
}

/** Wraps a recorded `now` for the script's Date. */
export function journaledNow(journal: Journal, clock: JournalClock): () => number {
  const box = journaled(journal, clock, { now: () => clock.now() }, 'Date');
  return () => box.now();
}
