// Inputs that always give the same outcome, like a payment sandbox's test card numbers.
// Documented as a table in README.md; a test checks the two agree.
import { type CleanInput, type InputField, inputValue } from '@enrich/core';

export type ReservedOutcome = 'no-match' | 'too-many' | 'fault' | 'allowance' | 'slow' | 'formula';

export interface Reserved {
  readonly outcome: ReservedOutcome;
  readonly phone: string;
  readonly email: string;
  readonly lastName: string;
  readonly description: string;
}

export const RESERVED: readonly Reserved[] = [
  {
    outcome: 'no-match',
    phone: '5550000204',
    email: 'nomatch@example.com',
    lastName: 'Nomatch',
    description: '204 no match',
  },
  {
    outcome: 'too-many',
    phone: '5550000440',
    email: 'toomany@example.com',
    lastName: 'Toomany',
    description: '440 too many results',
  },
  {
    outcome: 'fault',
    phone: '5550000500',
    email: 'fault@example.com',
    lastName: 'Fault',
    description: '500 service error',
  },
  {
    outcome: 'allowance',
    phone: '5550000429',
    email: 'ratelimit@example.com',
    lastName: 'Ratelimit',
    description: '429 allowance reached, with Retry-After: 1',
  },
  {
    outcome: 'slow',
    phone: '5550000999',
    email: 'slow@example.com',
    lastName: 'Slow',
    description: 'a record, 2 s late',
  },
  {
    outcome: 'formula',
    phone: '5550000061',
    email: 'formula@example.com',
    lastName: 'Formula',
    description: 'a record whose names and street read as spreadsheet formulas (=HYPERLINK(...), +1-2, ...)',
  },
];

export const SLOW_MS = 2000;

/** The reserved outcome an input asks for, if any: the first of its phone, e-mail or last name that is reserved. */
export function reservedOutcome(
  fields: readonly InputField[],
  input: CleanInput,
): ReservedOutcome | undefined {
  const phone = inputValue(fields, input, 'phone');
  const email = inputValue(fields, input, 'email')?.toLowerCase();
  const last = inputValue(fields, input, 'last-name')?.toLowerCase();
  const hit = RESERVED.find(
    (r) => r.phone === phone || r.email === email || r.lastName.toLowerCase() === last,
  );
  return hit?.outcome;
}
