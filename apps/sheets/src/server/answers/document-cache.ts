// Answers already paid for, kept in the document cache so that a recalculation (or a resumed
// sidebar run) does not pay again. The document cache, not the script cache: the script cache is
// shared by every user of a published add-on in every document, and these answers are personal
// data paid for with someone's key.
//
// Within CacheService's limits: it keeps at most 1,000 items (past that, the 900 furthest from
// expiry), so one item per answer would let a sheet with a few thousand distinct inputs evict its
// own answers and pay again on the next recalculation. Answers are therefore packed into a fixed
// number of buckets (199 items and a hint: 200, whatever the number of answers), each a JSON
// object under 100 KB, keyed by an answer's id (paid-answer.ts: no personal data in keys). Every
// answer is kept at most the cache's longest expiry, 6 hours, counted from when it was put in the
// cache.
//
// The cache is only the fast path: answers that must last go to the hidden sheet (hidden-sheet.ts),
// which only executions that may write can fill. So each cache entry says whether it is already
// kept there; keep.ts moves the others.
import { isPaid, isStoredOutcome, type Outcome } from '@enrich/core/universal';
import { underDocumentLock } from '../document-lock.js';
import { currentScrubber, scrubDeep } from '../key/scrub.js';
import { forKeeping, type PaidAnswer, spread } from './paid-answer.js';

/** CacheService's longest expiry: 6 hours. Past it, only Freeze results or the sidebar's values last. */
export const CACHE_TTL_SECONDS = 21_600;
/** 199 buckets and the unkept hint: 200 cache items, whatever the number of answers. */
const BUCKETS = 199;
/** CacheService refuses values over 100 KB; stay well under it. */
const MAX_BUCKET_BYTES = 90 * 1024;
const BUCKET_PREFIX = 'answers:';
/** Present while some cached answer may not be in the hidden sheet yet (a hint: it may be evicted). */
export const UNKEPT_HINT = 'answers:unkept';

/**
 * Entry id → [cached at (ms), outcome, kept in the hidden sheet (1) or not (0), paid at (ms), the
 * people its request carried (paid-answer.ts, whoOf)].
 */
export type CacheEntry = [number, Outcome, number, number, (readonly string[])?];
type Bucket = Record<string, CacheEntry>;

/** A cached answer, and whether the hidden sheet has it too. */
export interface CachedAnswer extends PaidAnswer {
  readonly kept: boolean;
}

function bucketOf(id: string): string {
  return BUCKET_PREFIX + (spread(id) % BUCKETS);
}

/** Every bucket key, for a pass over the whole cache. */
export function allBucketKeys(): string[] {
  return Array.from({ length: BUCKETS }, (_, i) => BUCKET_PREFIX + i);
}

export function documentCache(): GoogleAppsScript.Cache.Cache | null {
  return CacheService.getDocumentCache();
}

/** The cached outcomes among `ids`; a miss, an expired or an unreadable entry is simply absent. */
export function readCachedOutcomes(
  cache: GoogleAppsScript.Cache.Cache | null,
  ids: readonly string[],
  freshSince = 0,
): Map<string, Outcome> {
  const found = new Map<string, Outcome>();
  for (const [id, answer] of readCachedAnswers(cache, ids, freshSince)) found.set(id, answer.outcome);
  return found;
}

/** The cached answers among `ids` paid for after `freshSince` (ms), with their paid-at time and kept flag. */
export function readCachedAnswers(
  cache: GoogleAppsScript.Cache.Cache | null,
  ids: readonly string[],
  freshSince = 0,
): Map<string, CachedAnswer> {
  const found = new Map<string, CachedAnswer>();
  if (!cache || ids.length === 0) return found;
  const buckets = readBuckets(cache, ids.map(bucketOf));
  const oldest = Date.now() - CACHE_TTL_SECONDS * 1000;
  for (const id of ids) {
    const answer = liveAnswer(buckets.get(bucketOf(id))?.[id], oldest, freshSince);
    if (answer) found.set(id, answer);
  }
  return found;
}

/** Every live cached answer, bucket by bucket: the keep pass and the sidebar's count read them all. */
export function readAllCachedAnswers(
  cache: GoogleAppsScript.Cache.Cache,
  freshSince = 0,
): Map<string, CachedAnswer> {
  const found = new Map<string, CachedAnswer>();
  const oldest = Date.now() - CACHE_TTL_SECONDS * 1000;
  for (const bucket of readBuckets(cache, allBucketKeys()).values()) {
    for (const [id, entry] of Object.entries(bucket)) {
      const answer = liveAnswer(entry, oldest, freshSince);
      if (answer) found.set(id, answer);
    }
  }
  return found;
}

function liveAnswer(
  entry: CacheEntry | undefined,
  oldest: number,
  freshSince: number,
): CachedAnswer | undefined {
  if (!Array.isArray(entry) || !(entry[0] > oldest) || !isStoredOutcome(entry[1])) return undefined;
  const paidAt = entry[3];
  if (typeof paidAt !== 'number' || paidAt <= freshSince) return undefined;
  return {
    outcome: entry[1],
    paidAt,
    kept: entry[2] === 1,
    who: Array.isArray(entry[4]) ? entry[4] : undefined,
  };
}

/** An answer to put in the cache: paid now (by default) and not yet in the hidden sheet (by default). */
export interface AnswerToCache {
  readonly paidAt?: number;
  readonly kept?: boolean;
  readonly who?: readonly string[];
}

/**
 * Caches the paid outcomes (records, no match, 440, and paid but unreadable answers); errors that
 * cost nothing are asked again. Read-modify-write of the buckets under the document lock, so that
 * two executions saving at once (Sheets runs several custom functions together) do not drop each
 * other's answers; waiting for it at most `lockWaitMs`, then saving without it (0: at once).
 */
export function cacheAnswers(
  cache: GoogleAppsScript.Cache.Cache | null,
  entries: readonly (readonly [string, Outcome, AnswerToCache?])[],
  lockWaitMs = 5_000,
): void {
  const paid = entries.filter(([, outcome]) => isPaid(outcome));
  if (!cache || paid.length === 0) return;
  const save = () => {
    const read = cache.getAll(answerKeys(paid.map(([id]) => id)));
    cache.putAll(answerItems(read, paid), CACHE_TTL_SECONDS);
  };
  // A sidebar chunk already holds the document lock: it saves under it and keeps it.
  if (!underDocumentLock(lockWaitMs, save)) save();
}

/** The cache keys of the buckets holding `ids`' answers, to read with other items in one call. */
export function answerKeys(ids: readonly string[]): string[] {
  return [...new Set(ids.map(bucketOf))];
}

/** The cached outcomes among `ids`, from the buckets as read (`read`, with answerKeys). */
export function outcomesFrom(
  read: Readonly<Record<string, string>>,
  ids: readonly string[],
): Map<string, Outcome> {
  const found = new Map<string, Outcome>();
  const buckets = bucketsFrom(read, answerKeys(ids));
  const oldest = Date.now() - CACHE_TTL_SECONDS * 1000;
  for (const id of ids) {
    const answer = liveAnswer(buckets.get(bucketOf(id))?.[id], oldest, 0);
    if (answer) found.set(id, answer.outcome);
  }
  return found;
}

/**
 * The bucket items to put (TTL 6 hours) for the paid outcomes among `entries`, merged into the
 * buckets as read (`read`, with answerKeys) under the document lock; nothing when none is paid.
 */
export function answerItems(
  read: Readonly<Record<string, string>>,
  entries: readonly (readonly [string, Outcome, AnswerToCache?])[],
): Record<string, string> {
  const paid = entries.filter(([, outcome]) => isPaid(outcome));
  const values: Record<string, string> = {};
  if (paid.length === 0) return values;
  const keys = answerKeys(paid.map(([id]) => id));
  const buckets = bucketsFrom(read, keys);
  const now = Date.now();
  // What the service sent is kept, and a service could echo the key: never into the cache.
  const scrub = currentScrubber();
  for (const [id, outcome, how] of paid) {
    const key = bucketOf(id);
    const bucket = buckets.get(key) ?? {};
    bucket[id] = [
      now,
      scrubDeep(forKeeping(outcome), scrub),
      how?.kept ? 1 : 0,
      how?.paidAt ?? now,
      how?.who ?? [],
    ];
    buckets.set(key, bucket);
  }
  // A paid answer not in the hidden sheet yet: tells the simple triggers there is something to keep.
  if (paid.some(([, , how]) => !how?.kept)) values[UNKEPT_HINT] = String(now);
  for (const key of keys) values[key] = serialise(buckets.get(key) ?? {}, now);
  return values;
}

/** Marks cached answers as kept in the hidden sheet, under the document lock the caller holds. */
export function markKept(cache: GoogleAppsScript.Cache.Cache, ids: readonly string[]): void {
  const keys = [...new Set(ids.map(bucketOf))];
  const buckets = readBuckets(cache, keys);
  const now = Date.now();
  for (const id of ids) {
    const entry = buckets.get(bucketOf(id))?.[id];
    if (Array.isArray(entry)) entry[2] = 1;
  }
  const values: Record<string, string> = {};
  for (const key of keys) {
    const bucket = buckets.get(key);
    if (bucket) values[key] = serialise(bucket, now);
  }
  if (Object.keys(values).length > 0) cache.putAll(values, CACHE_TTL_SECONDS);
  cache.remove(UNKEPT_HINT);
}

/**
 * Drops the cached answers `drop` picks (Forget a person), expired ones still in a bucket included,
 * rewriting the buckets that held any; under the document lock the caller holds. Returns how many.
 */
export function dropCachedAnswers(
  cache: GoogleAppsScript.Cache.Cache,
  drop: (answer: { readonly outcome: unknown; readonly who?: readonly string[] }) => boolean,
): number {
  const put: Record<string, string> = {};
  let dropped = 0;
  for (const [key, bucket] of readBuckets(cache, allBucketKeys())) {
    const before = dropped;
    for (const [id, entry] of Object.entries(bucket)) {
      if (!drop({ outcome: entry?.[1], who: Array.isArray(entry?.[4]) ? entry[4] : undefined })) continue;
      delete bucket[id];
      dropped++;
    }
    if (dropped > before) put[key] = serialise(bucket, Date.now());
  }
  if (dropped > 0) cache.putAll(put, CACHE_TTL_SECONDS);
  return dropped;
}

function readBuckets(cache: GoogleAppsScript.Cache.Cache, keys: readonly string[]): Map<string, Bucket> {
  const unique = [...new Set(keys)];
  return bucketsFrom(cache.getAll(unique), unique);
}

function bucketsFrom(
  texts: Readonly<Record<string, string>>,
  unique: readonly string[],
): Map<string, Bucket> {
  const buckets = new Map<string, Bucket>();
  for (const key of unique) {
    const text = texts[key];
    if (typeof text !== 'string') continue;
    try {
      const value = JSON.parse(text) as Bucket;
      if (value && typeof value === 'object' && !Array.isArray(value)) buckets.set(key, value);
    } catch {
      // A damaged bucket is a miss; the next save replaces it.
    }
  }
  return buckets;
}

/** The bucket as JSON without expired answers, dropping the oldest until it fits the size limit. */
function serialise(bucket: Bucket, now: number): string {
  const oldest = now - CACHE_TTL_SECONDS * 1000;
  let live = Object.entries(bucket)
    .filter(([, entry]) => Array.isArray(entry) && entry[0] > oldest)
    .sort((a, b) => b[1][0] - a[1][0]);
  let text = JSON.stringify(Object.fromEntries(live));
  while (utf8Length(text) > MAX_BUCKET_BYTES && live.length > 0) {
    live = live.slice(0, Math.floor(live.length * 0.9));
    text = JSON.stringify(Object.fromEntries(live));
  }
  return text;
}

/** Bytes of a string in UTF-8 (Apps Script has no TextEncoder). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    bytes +=
      code < 0x80
        ? 1
        : code < 0x800
          ? 2
          : code >= 0xd800 && code <= 0xdbff
            ? 4
            : code >= 0xdc00 && code <= 0xdfff
              ? 0
              : 3;
  }
  return bytes;
}
