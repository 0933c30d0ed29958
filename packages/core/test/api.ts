// The API description (docs/api.md) restated by hand for the tests. The tests compare the
// catalog against this: it is the independent check, so restating the spec here is the point.
// Nowhere outside the tests may these names, paths or numbers be typed again.
import { getOperation, type Operation, type OperationId } from '../src/index.js';

export const ALL_IDS: readonly OperationId[] = [
  'auto-append',
  'demographic-append',
  'email-append',
  'phone-append',
  'email-lookup',
  'phone-lookup',
  'email-verify',
  'tcpa-verify',
  'id-verify',
];

export const op = (id: OperationId): Operation => getOperation(id);

/** A valid input of each operation, to which one field at a time is changed. */
export const VALID: Readonly<Record<OperationId, Readonly<Record<string, string>>>> = {
  'auto-append': { Phone: '5550102030' },
  'demographic-append': {
    FName: 'Jane',
    LName: 'Doe',
    Address1: '12 Main St',
    Zip: '02134',
    Phone: '5550102030',
  },
  'email-append': { FName: 'Jane', LName: 'Doe', Address1: '12 Main St', Zip: '02134' },
  'phone-append': { FName: 'Jane', LName: 'Doe', Address1: '12 Main St', Zip: '02134' },
  'email-lookup': { Email: 'jane@example.com' },
  'phone-lookup': { Phone: '5550102030' },
  'email-verify': { Email: 'jane@example.com' },
  'tcpa-verify': { phone: '5550102030', last_name: 'Doe' },
  'id-verify': { FName: 'Jane', LName: 'Doe', Address1: '12 Main St', Zip: '02134' },
};

/**
 * An e-mail address of exactly `length` characters (6 to 132) that breaks no address rule: at most
 * 64 characters before the @ and 63 in a label of the domain.
 */
export function emailOfLength(length: number): string {
  if (length < 6 || length > 132) throw new RangeError(`no such address of ${length} characters`);
  const local = 'a'.repeat(Math.min(64, length - '@b.com'.length));
  return `${local}@${'b'.repeat(length - local.length - '@.com'.length)}.com`;
}

export const KEY = 'sk_live_9f8e7d6c5b4a3210fedcba98';
export const SETTINGS = {
  apiKey: KEY,
  baseUrl: 'https://v2.example.test',
  baseUrlV3: 'https://v3.example.test/api',
};
