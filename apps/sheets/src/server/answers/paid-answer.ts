// An answer paid for, as both stores keep it (the document cache for hours, the hidden sheet for
// days): its id, the form it is kept in, and the check it passes when read back. Both stores read
// what an earlier execution wrote, so a value that is not what we wrote is a miss, never a crash.
import {
  type CleanInput,
  capRaw,
  type Identity,
  identityText,
  type Operation,
  type Outcome,
  requestIdentities,
} from '@enrich/core/universal';

/**
 * What is kept of the body the service sent, per answer. Core caps it at 64 KiB; a cache bucket
 * holds 90 KB and a hidden-sheet cell 45,000 characters (compressed), so here it is cut to 8,000
 * characters: even text that does not compress (3 bytes a character, then base64) stays under both.
 */
export const MAX_KEPT_RAW_CHARS = 8_000;

/** An answer with when it was paid for: freshness counts from then. */
export interface PaidAnswer {
  readonly outcome: Outcome;
  readonly paidAt: number;
  /** Its request's people (whoOf), so that Forget a person finds it (none in answers kept before). */
  readonly who?: readonly string[];
}

/**
 * The id an answer is kept under: a digest of the request's URL (a changed base URL asks again) and
 * its request key, so that no input is in the clear in a cache key or a hidden-sheet cell.
 */
export function answerId(url: string, requestKey: string): string {
  const digest = Utilities.computeDigest(
    Utilities.DigestAlgorithm.SHA_256,
    `${url}\n${requestKey}`,
    Utilities.Charset.UTF_8,
  );
  return Utilities.base64EncodeWebSafe(digest.slice(0, 18));
}

/**
 * A person (core's identity: a phone, an e-mail, a name with its street line) as kept beside an
 * answer: 12 characters of a SHA-256 of the canonical identity, as unsalted as the answer's own id
 * (a digest of the request), so that an answer whose request carried the person is found when they
 * are forgotten, even when the answer itself (a "no match", say) does not name them.
 */
export function personTag(identity: Identity): string {
  const digest = Utilities.computeDigest(
    Utilities.DigestAlgorithm.SHA_256,
    identityText(identity),
    Utilities.Charset.UTF_8,
  );
  return Utilities.base64EncodeWebSafe(digest.slice(0, 9));
}

/** The people a request carries, as kept beside its answer (personTag). */
export function whoOf(op: Operation, input: CleanInput): string[] {
  return requestIdentities(op, input).map(personTag);
}

/** FNV-1a over an id, which is itself a digest: spreads answers evenly over buckets. */
export function spread(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * The outcome as it is kept: the body the service sent is kept, cut to MAX_KEPT_RAW_CHARS, when the
 * answer differed from the API description or could not be read, so that a later version can read
 * it again without paying. A record that matched the description exactly is its body already (same
 * names, same types, nothing more), so its copy of the body is not kept twice: that keeps 20,000
 * answers inside the hidden sheet's read-time budget.
 */
export function forKeeping(outcome: Outcome): Outcome {
  if (outcome.kind === 'unreadable') return { ...outcome, raw: capRaw(outcome.raw, MAX_KEPT_RAW_CHARS) };
  if (outcome.kind !== 'record') return outcome;
  const raw = outcome.mismatches.length === 0 ? '' : capRaw(outcome.raw, MAX_KEPT_RAW_CHARS);
  return { ...outcome, raw };
}
