// Answers already paid for, kept in the document cache so that a recalculation (or a resumed
// sidebar run) does not pay again. The document cache, not the script cache: the script cache is
// shared by every user of a published add-on in every document, and these answers are personal
// data paid for with someone's key.
//
// Within CacheService's limits: it keeps at most 1,000 items (past that, the 900 furthest from
// expiry), so one item per answer would let a sheet with a few thousand distinct inputs evict its
// own answers and pay again on the next recalculation. Answers are therefore packed into a fixed
// number of buckets (200 items, whatever the number of answers), each a JSON object under 100 KB,
// keyed by a SHA-256 of the request (no personal data in keys). Every answer is kept at most the
// cache's longest expiry, 6 hours, counted from when it was paid for.
import { isBillable, type Outcome } from '@enrich/core';

/** CacheService's longest expiry: 6 hours. Past it, only Freeze results or the sidebar's values last. */
export const ANSWER_TTL_SECONDS = 21_600;
const BUCKETS = 200;
/** CacheService refuses values over 100 KB; stay well under it. */
const MAX_BUCKET_BYTES = 90 * 1024;
const BUCKET_PREFIX = 'answers:';

/** Entry id → [paid at (ms), outcome]. */
type Bucket = Record<string, [number, Outcome]>;

/** The id of a request's answer: a digest of its URL (a changed base URL asks again) and request key. */
export function answerKey(url: string, requestKey: string): string {
  const digest = Utilities.computeDigest(
    Utilities.DigestAlgorithm.SHA_256,
    `${url}\n${requestKey}`,
    Utilities.Charset.UTF_8,
  );
  return Utilities.base64EncodeWebSafe(digest.slice(0, 18));
}

function bucketOf(id: string): string {
  // FNV-1a over the id, which is itself a digest: spreads answers evenly over the buckets.
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return BUCKET_PREFIX + (h % BUCKETS);
}

export function documentCache(): GoogleAppsScript.Cache.Cache | null {
  return CacheService.getDocumentCache();
}

/** The cached outcomes among `ids`; a miss, an expired or an unreadable entry is simply absent. */
export function readAnswers(
  cache: GoogleAppsScript.Cache.Cache | null,
  ids: readonly string[],
): Map<string, Outcome> {
  const found = new Map<string, Outcome>();
  if (!cache || ids.length === 0) return found;
  const buckets = readBuckets(cache, ids.map(bucketOf));
  const oldest = Date.now() - ANSWER_TTL_SECONDS * 1000;
  for (const id of ids) {
    const entry = buckets.get(bucketOf(id))?.[id];
    if (entry && entry[0] > oldest && isOutcome(entry[1])) found.set(id, entry[1]);
  }
  return found;
}

/**
 * Keeps the billable outcomes (the ones that cost a transaction); errors that cost nothing are
 * asked again. Read-modify-write of the buckets under the document lock, so that two executions
 * saving at once (Sheets runs several custom functions together) do not drop each other's answers.
 */
export function saveAnswers(
  cache: GoogleAppsScript.Cache.Cache | null,
  entries: readonly (readonly [string, Outcome])[],
): void {
  const billable = entries.filter(([, outcome]) => isBillable(outcome));
  if (!cache || billable.length === 0) return;
  const lock = LockService.getDocumentLock();
  // A sidebar chunk already holds the document lock; releasing it here would release it for good.
  const held = lock !== null && lock.hasLock();
  const locked = lock !== null && (held || lock.tryLock(5_000));
  try {
    const keys = [...new Set(billable.map(([id]) => bucketOf(id)))];
    const buckets = readBuckets(cache, keys);
    const now = Date.now();
    for (const [id, outcome] of billable) {
      const key = bucketOf(id);
      const bucket = buckets.get(key) ?? {};
      bucket[id] = [now, outcome];
      buckets.set(key, bucket);
    }
    const values: Record<string, string> = {};
    for (const key of keys) values[key] = serialise(buckets.get(key) ?? {}, now);
    cache.putAll(values, ANSWER_TTL_SECONDS);
  } finally {
    if (locked && !held) lock.releaseLock();
  }
}

function readBuckets(cache: GoogleAppsScript.Cache.Cache, keys: readonly string[]): Map<string, Bucket> {
  const unique = [...new Set(keys)];
  const texts = cache.getAll(unique);
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
  const oldest = now - ANSWER_TTL_SECONDS * 1000;
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

function isOutcome(value: Outcome | undefined): value is Outcome {
  if (!value || typeof value !== 'object') return false;
  if (value.kind === 'record') return !!value.record && typeof value.record === 'object';
  if (value.kind === 'no-match') return true;
  return value.kind === 'error' && !!value.error && typeof value.error.message === 'string';
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
