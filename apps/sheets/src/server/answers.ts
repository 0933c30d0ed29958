// Answers already paid for, kept in the document cache so that a recalculation (or a resumed
// sidebar run) does not pay again. The document cache, not the script cache: the script cache is
// shared by every user of a published add-on in every document, and these answers are personal
// data paid for with someone's key. Within CacheService's limits: keys are a SHA-256 of the request
// (44 characters, and no personal data in the key), values under 100 KB, the longest expiry.
import { isBillable, type Outcome } from '@enrich/core';

/** CacheService's longest expiry: 6 hours. Past it, only Freeze results or the sidebar's values last. */
export const ANSWER_TTL_SECONDS = 21_600;
/** CacheService refuses values over 100 KB; a record is far smaller, but never risk the call. */
const MAX_VALUE_CHARS = 90_000;

/** The cache key of a request: its URL (so a changed base URL asks again) and its request key. */
export function answerKey(url: string, requestKey: string): string {
  const digest = Utilities.computeDigest(
    Utilities.DigestAlgorithm.SHA_256,
    `${url}\n${requestKey}`,
    Utilities.Charset.UTF_8,
  );
  return `a:${Utilities.base64EncodeWebSafe(digest)}`;
}

export function documentCache(): GoogleAppsScript.Cache.Cache | null {
  return CacheService.getDocumentCache();
}

/** The cached outcomes among `keys`; a cache miss or an unreadable entry is simply absent. */
export function readAnswers(
  cache: GoogleAppsScript.Cache.Cache | null,
  keys: readonly string[],
): Map<string, Outcome> {
  const found = new Map<string, Outcome>();
  if (!cache || keys.length === 0) return found;
  const values = cache.getAll([...keys]);
  for (const key of keys) {
    const text = values[key];
    if (typeof text !== 'string') continue;
    const outcome = parseOutcome(text);
    if (outcome) found.set(key, outcome);
  }
  return found;
}

/** Keeps the billable outcomes (the ones that cost a transaction); errors that cost nothing are asked again. */
export function saveAnswers(
  cache: GoogleAppsScript.Cache.Cache | null,
  entries: readonly (readonly [string, Outcome])[],
): void {
  if (!cache) return;
  const values: Record<string, string> = {};
  let count = 0;
  for (const [key, outcome] of entries) {
    if (!isBillable(outcome)) continue;
    const text = JSON.stringify(outcome);
    if (text.length > MAX_VALUE_CHARS) continue;
    values[key] = text;
    count++;
  }
  if (count > 0) cache.putAll(values, ANSWER_TTL_SECONDS);
}

function parseOutcome(text: string): Outcome | undefined {
  try {
    const value = JSON.parse(text) as Outcome;
    if (value.kind === 'record' && value.record && typeof value.record === 'object') return value;
    if (value.kind === 'no-match') return value;
    if (value.kind === 'error' && value.error && typeof value.error.message === 'string') return value;
  } catch {
    // A damaged entry is a miss.
  }
  return undefined;
}
