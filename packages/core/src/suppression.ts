// The suppression list (issue 38): the people a user (or a team's shared store) was asked to forget,
// kept as salted hashes of their canonical identities (identity.ts), never in clear, and checked
// before every paid call in every client: a request that carries a forgotten identity is refused
// locally, nothing sent, nothing kept.
//
// The hash is HMAC-SHA-256 keyed by the list's own random salt, over `kind:value` (identityText),
// in lower-case hex. Core computes no hash itself (it runs in Apps Script, which has no crypto
// module): each platform passes its HMAC (Node's crypto, Apps Script's
// Utilities.computeHmacSha256Signature), and this file decides what is hashed and what a hit says.
// What a salted hash does and does not hide: without the salt, nothing of a person can be read back;
// with the salt (it is kept beside the list, as it must be to check a request), a phone can be
// guessed by hashing every 10-digit number. The list is pseudonymous, not anonymous: it is kept in
// the user's data folder (0600) and the store, where the answers it replaces were.

import type { Operation } from './catalog.js';
import { type Identity, identityText, requestIdentities } from './identity.js';
import type { CleanInput } from './validate.js';

/** HMAC-SHA-256 of `text` keyed by `salt` (both as given), in lower-case hex. */
export type Hmac = (salt: string, text: string) => string;

/** One forgotten identity: its hash, its kind (for the record: no value), and the UTC day it was added. */
export interface SuppressionEntry {
  readonly hash: string;
  readonly kind: Identity['kind'];
  /** `2026-11-25`: the UTC day the person was forgotten. */
  readonly on: string;
}

/** The hash an identity is kept under in a list with this salt. */
export function suppressionHash(hmac: Hmac, salt: string, identity: Identity): string {
  return hmac(salt, identityText(identity));
}

/** What a refused request says, in every client. */
export function forgottenMessage(on: string): string {
  return `forgotten at the person's request on ${on}; nothing was sent`;
}

/** The UTC day of a time, as lists and messages write it. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** A list in memory, ready to check requests: one hash per identity of the request. */
export class SuppressionCheck {
  private readonly byHash = new Map<string, SuppressionEntry>();

  constructor(
    private readonly hmac: Hmac,
    private readonly salt: string,
    entries: Iterable<SuppressionEntry>,
  ) {
    for (const entry of entries) this.byHash.set(entry.hash, entry);
  }

  get size(): number {
    return this.byHash.size;
  }

  /** The entry of the first of these identities that is forgotten, or undefined. */
  entryFor(identities: readonly Identity[]): SuppressionEntry | undefined {
    if (this.byHash.size === 0) return undefined;
    for (const identity of identities) {
      const entry = this.byHash.get(suppressionHash(this.hmac, this.salt, identity));
      if (entry) return entry;
    }
    return undefined;
  }

  /** Why this request must not be sent (forgottenMessage), or undefined when it may be. */
  refusal(op: Operation, input: CleanInput): string | undefined {
    if (this.byHash.size === 0) return undefined;
    const entry = this.entryFor(requestIdentities(op, input));
    return entry ? forgottenMessage(entry.on) : undefined;
  }
}

/** Several lists (the user's and a shared store's): refused when any refuses. */
export function anyRefusal(
  checks: readonly (Pick<SuppressionCheck, 'refusal'> | undefined)[],
  op: Operation,
  input: CleanInput,
): string | undefined {
  for (const check of checks) {
    const refused = check?.refusal(op, input);
    if (refused) return refused;
  }
  return undefined;
}
