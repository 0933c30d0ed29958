// Likely meanings of coded values whose meanings the API description does not show. They come
// from a related provider's documentation (docs/platforms.md), so clients show them beside the
// raw code and always mark them "likely"; the code itself is never replaced.
import type { Operation } from './catalog.js';
import { outputField } from './flatten.js';
import type { Looks } from './outputs.js';

export const LIKELY_MEANINGS: Partial<Record<Looks, Readonly<Record<string, string>>>> = {
  'line-type': { L: 'landline', V: 'VoIP', W: 'wireless', O: 'other' },
  'tcpa-code': {
    Y: 'record verified',
    YP: 'verified, partial name match',
    YX: 'verified, non-authoritative source',
    N: 'phone matched a different person',
    U: 'unconfirmed',
  },
  'result-code': {
    VERIFIED: 'the mailbox exists',
    UNDELIVERABLE: 'mail to it would bounce',
    CATCHALL: 'the domain accepts any address',
    UNKNOWN: 'could not be checked',
    DISTRIBUTIONGROUP: 'a group or list address',
    SPAMTRAP: 'a spam trap',
    COMPLAINER: 'marks mail as spam',
    BOT: 'an automated address',
    SUPPRESSED: 'on a suppression list',
    SEEDACCOUNT: 'a seed account',
  },
  'income-band': { A: 'under $20,000', I: 'over $149,999' },
  confidence: { '1': 'highest confidence', '7': 'unconfirmed' },
};

/** The likely meaning of a value in an output column, or undefined when none is known. */
export function likelyMeaning(op: Operation, column: string, value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const looks = outputField(op, column)?.looks;
  if (looks === undefined) return undefined;
  return LIKELY_MEANINGS[looks]?.[String(value).trim().toUpperCase()];
}
