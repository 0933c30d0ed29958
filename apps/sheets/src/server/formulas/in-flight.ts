// "In flight" markers in the document cache: an execution that is buying an answer marks its id
// until a time, and renews the mark every round; another execution that finds a live mark waits for
// the answer instead of buying it. Marks are packed into a few cache items (id → until, ms), not one
// item per input: a 3,000-row formula would otherwise add 3,000 items and push the cache past its
// 1,000-item cap, evicting answers. Items are shared by executions, so they are changed only under
// the document lock (read, change, write back); they are read without it.
import { spread } from '../answers/paid-answer.js';

const MARK = 'inflight:';
const MARK_ITEMS = 16;
/** A mark never outlives the execution that set it, and custom functions stop at 30 s. */
const MARK_SECONDS = 30;

type Cache = GoogleAppsScript.Cache.Cache;
/** Id → time (ms) until which an execution is buying it. */
type Marks = Record<string, number>;

/** The mark items covering some ids, as read; changed in place, written back under the document lock. */
export interface MarkItems {
  /** Whether an execution is buying `id` at `now`. */
  live(id: string, now: number): boolean;
  set(id: string, until: number): void;
  remove(id: string): void;
  /** Writes the items back without expired marks; an empty item is removed. Under the document lock. */
  write(now: number): void;
  /**
   * The items without expired marks, to put (with the caller's other items, in one call) by a caller
   * that holds the document lock; an empty item is put empty. Their until times, not the items'
   * expiry, say whether a mark is live.
   */
  items(now: number): Record<string, string>;
}

/** The cache keys of the mark items covering `ids`, to read with other items in one call. */
export function markKeys(ids: readonly string[]): string[] {
  return [...new Set(ids.map(markKey))];
}

/** Reads the mark items covering `ids` (an absent or unreadable item is empty). */
export function readMarks(cache: Cache, ids: readonly string[]): MarkItems {
  return marksFrom(cache, cache.getAll(markKeys(ids)), ids);
}

/** The mark items covering `ids`, from `texts` as read (by readMarks, or with other items). */
export function marksFrom(
  cache: Cache,
  texts: Readonly<Record<string, string>>,
  ids: readonly string[],
): MarkItems {
  const keys = markKeys(ids);
  const items = new Map<string, Marks>();
  for (const key of keys) {
    let marks: Marks = {};
    try {
      const parsed = JSON.parse(texts[key] ?? '{}') as Marks;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) marks = parsed;
    } catch {
      // unreadable: no marks
    }
    items.set(key, marks);
  }
  const item = (id: string) => items.get(markKey(id)) as Marks;
  const liveItems = (now: number) => {
    const out: Record<string, string> = {};
    for (const [key, marks] of items) {
      out[key] = JSON.stringify(Object.fromEntries(Object.entries(marks).filter(([, until]) => until > now)));
    }
    return out;
  };
  return {
    live: (id, now) => (item(id)[id] ?? 0) > now,
    set(id, until) {
      item(id)[id] = until;
    },
    remove(id) {
      delete item(id)[id];
    },
    write(now) {
      const put: Record<string, string> = {};
      const empty: string[] = [];
      for (const [key, text] of Object.entries(liveItems(now))) {
        if (text === '{}') empty.push(key);
        else put[key] = text;
      }
      if (Object.keys(put).length > 0) cache.putAll(put, MARK_SECONDS);
      if (empty.length > 0) cache.removeAll(empty);
    },
    items: (now) => liveItems(now),
  };
}

function markKey(id: string): string {
  return MARK + (spread(id) % MARK_ITEMS);
}
