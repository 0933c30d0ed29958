// Who a person is, for forgetting them (issue 38): a phone, an e-mail, or a name with a street
// address, each in one canonical spelling so that every spelling core normalises finds the same
// person. Decided here once for every client (the CLI's forget and held, the suppression list every
// client checks, VS Code's Forget a Person, Sheets):
// - a phone is its 10 digits as core normalises it ("(555) 010-2030", "+1 555 010 2030");
// - an e-mail is the whole address in lower case: the service treats addresses without regard to
//   case, so a person forgotten as Jane.Doe@Example.com is also jane.doe@example.com;
// - a name and address is the person's name (FullName, or FName and LName) and the street line
//   (Address1), each in lower case with punctuation and runs of spaces made one space. The ZIP is
//   not part of it: the name at that street line is matched in every town, so that a request sent
//   with City/State (Demographic Append) or a ZIP written another way is not missed. Matching more
//   than the one person costs a purchase again; matching less would keep what the person asked us
//   to forget.

import type { Operation } from './catalog.js';
import { checkEmail } from './email.js';
import { normaliseValue } from './normalise.js';
import type { CleanInput } from './validate.js';

export type IdentityKind = 'phone' | 'email' | 'name-address';

export const IDENTITY_KINDS: readonly IdentityKind[] = ['phone', 'email', 'name-address'];

/** One identity in its canonical spelling (see the top of this file). */
export interface Identity {
  readonly kind: IdentityKind;
  /** `5550102030`; `jane.doe@example.com`; for a name and address, `name` and `street`. */
  readonly value: string;
}

/** A name and address: `value` is `<name>|<street>`, both canonical. */
export function nameAddressIdentity(name: string, street: string): Identity {
  return { kind: 'name-address', value: `${canonicalWords(name)}|${canonicalWords(street)}` };
}

/** Lower case, every run of characters that are not letters or digits made one space, trimmed. */
export function canonicalWords(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The text an identity is hashed and logged as (never logged in clear: see suppression.ts). */
export function identityText(identity: Identity): string {
  return `${identity.kind}:${identity.value}`;
}

/** How an identity is named to people: "phone 5550102030", "e-mail ...", "name and address ...". */
export function describeIdentity(identity: Identity): string {
  if (identity.kind === 'phone') return `phone ${identity.value}`;
  if (identity.kind === 'email') return `e-mail ${identity.value}`;
  const [name, street] = identity.value.split('|');
  return `name and address ${name}, ${street}`;
}

/** The words of an identity's kind, for the record of requests (no value). */
export const IDENTITY_KIND_WORDS: Readonly<Record<IdentityKind, string>> = {
  phone: 'phone',
  email: 'e-mail',
  'name-address': 'name and address',
};

export type IdentityRead =
  | { readonly ok: true; readonly identities: readonly Identity[] }
  | { readonly ok: false; readonly message: string };

/** Field names a forget request takes, in the catalog's spelling; matched without regard to case, - or _. */
const FIELDS = ['Phone', 'Email', 'FullName', 'FName', 'LName', 'Address1', 'Zip', 'City', 'State'] as const;
type ForgetField = (typeof FIELDS)[number];

/** The catalog's field a loose spelling names (`phone`, `last_name`, `LName`), if it is one of FIELDS. */
export function forgetField(name: string): ForgetField | undefined {
  const loose = name.toLowerCase().replace(/[-_\s]/g, '');
  const aliases: Record<string, ForgetField> = {
    lastname: 'LName',
    firstname: 'FName',
    name: 'FullName',
    address: 'Address1',
    email: 'Email',
    zipcode: 'Zip',
    postalcode: 'Zip',
    phonenumber: 'Phone',
    emailaddress: 'Email',
    street: 'Address1',
    streetaddress: 'Address1',
  };
  return FIELDS.find((f) => f.toLowerCase() === loose) ?? aliases[loose];
}

/**
 * The identities one forget request names (a person's fields as typed: flags, a row of a file, a
 * form): a phone, an e-mail, a name and address; any of them, at least one. A value that is not a
 * phone, an e-mail, or a name without its street line (or the reverse) is refused by a message
 * naming the field and the rule. Unknown fields are refused; Zip, City and State are accepted and
 * not used (see the top of this file).
 */
export function identitiesOf(raw: Readonly<Record<string, unknown>>): IdentityRead {
  const given: Partial<Record<ForgetField, string>> = {};
  for (const [name, value] of Object.entries(raw)) {
    const field = forgetField(name);
    if (!field) {
      return {
        ok: false,
        message: `${name} is not a field of a person: give Phone, Email, or a name and Address1`,
      };
    }
    const text = normaliseValue(field === 'Phone' ? 'phone' : field === 'Email' ? 'email' : 'text', value);
    if ('problem' in text) return { ok: false, message: `${field} ${text.problem}` };
    if (text.value !== undefined) given[field] = text.value;
  }
  const identities: Identity[] = [];
  if (given.Phone !== undefined) {
    if (!/^[0-9]{10}$/.test(given.Phone)) {
      return {
        ok: false,
        message: `Phone must be 10 digits (formatting and a leading 1 are fine); got "${given.Phone}"`,
      };
    }
    identities.push({ kind: 'phone', value: given.Phone });
  }
  if (given.Email !== undefined) {
    if (checkEmail(given.Email))
      return { ok: false, message: `Email is not an e-mail address; got "${given.Email}"` };
    identities.push({ kind: 'email', value: given.Email.toLowerCase() });
  }
  const name = given.FullName ?? [given.FName, given.LName].filter((p) => p !== undefined).join(' ');
  if (given.FullName !== undefined && (given.FName !== undefined || given.LName !== undefined)) {
    return { ok: false, message: 'give the name as FullName or as FName and LName, not both' };
  }
  if (name !== '' || given.Address1 !== undefined) {
    if (
      given.FullName === undefined &&
      (given.FName === undefined || given.LName === undefined) &&
      name !== ''
    ) {
      return { ok: false, message: 'a name needs both FName and LName (or FullName)' };
    }
    if (
      name === '' ||
      given.Address1 === undefined ||
      canonicalWords(name) === '' ||
      canonicalWords(given.Address1) === ''
    ) {
      return {
        ok: false,
        message: 'a name and address needs the name (FullName, or FName and LName) and Address1',
      };
    }
    identities.push(nameAddressIdentity(name, given.Address1));
  }
  if (identities.length === 0) {
    return {
      ok: false,
      message: 'give the person: Phone, Email, or a name (FullName, or FName and LName) with Address1',
    };
  }
  return { ok: true, identities };
}

/**
 * The identities a valid request carries (core's clean input): its phone (Phone or TCPA's phone),
 * its e-mail, its name with its street line. A request with none (a name without Address1) has none.
 */
export function requestIdentities(op: Operation, input: CleanInput): Identity[] {
  const found: Identity[] = [];
  let first: string | undefined;
  let last: string | undefined;
  let full: string | undefined;
  let street: string | undefined;
  for (const field of op.inputs) {
    const value = input[field.name];
    if (value === undefined) continue;
    if (field.kind === 'phone') found.push({ kind: 'phone', value });
    else if (field.kind === 'email') found.push({ kind: 'email', value: value.toLowerCase() });
    else if (field.name === 'FName') first = value;
    else if (field.name === 'LName') last = value;
    else if (field.name === 'FullName') full = value;
    else if (field.name === 'Address1') street = value;
  }
  const name = full ?? (first !== undefined && last !== undefined ? `${first} ${last}` : undefined);
  if (name !== undefined && street !== undefined) found.push(nameAddressIdentity(name, street));
  return found;
}

/** How to type a person (readPersonText's rule, said when it is not followed). */
export const PERSON_TEXT_HOW = 'Give a phone, an e-mail, or a name and street line ("Jane Doe, 12 Main St")';

/**
 * A person as typed into a box (VS Code's Forget a Person, the Sheets sidebar): parts separated by
 * ";", each a phone, an e-mail (it holds an @), or "name, street line"; read with identitiesOf.
 */
export function readPersonText(text: string): IdentityRead {
  const parts = text
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) return { ok: false, message: PERSON_TEXT_HOW };
  const identities: Identity[] = [];
  for (const part of parts) {
    const comma = part.indexOf(',');
    const fields = part.includes('@')
      ? { Email: part }
      : /^[\d\s().+/-]+$/.test(part)
        ? { Phone: part }
        : comma > 0
          ? { FullName: part.slice(0, comma), Address1: part.slice(comma + 1) }
          : undefined;
    if (!fields) {
      return {
        ok: false,
        message: `"${part}" is not a phone, an e-mail, or a name and street line ("Jane Doe, 12 Main St")`,
      };
    }
    const read = identitiesOf(fields);
    if (!read.ok) return read;
    identities.push(...read.identities);
  }
  return { ok: true, identities };
}
