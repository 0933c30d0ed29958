// Input fields as the API description's "Input fields" and "Limits" tables give them.
// Per-operation bounds differ (LName 15 for Phone Append, 20 elsewhere), so an operation
// picks its fields from these factories rather than sharing one fixed definition.

import type { InputKind } from './vocabulary/field-kinds.js';

/** What a value means, whatever the operation calls it (`LName` or `last_name` are both a last name). */
export type InputLooks =
  | 'phone'
  | 'email'
  | 'full-name'
  | 'first-name'
  | 'last-name'
  | 'address'
  | 'zip'
  | 'city'
  | 'state';

/** `Name` keeps the literal field name, so that the SDK's input types are derived from the catalog. */
export interface InputField<Name extends string = string> {
  /** The JSON body name, exactly as the API spells it (`Phone`, or `phone` for TCPA Verify). */
  readonly name: Name;
  /** Words for people: prompts, column headers, CLI help. */
  readonly label: string;
  readonly kind: InputKind;
  readonly looks: InputLooks;
  /** Maximum length in characters, where the Limits table gives one. */
  readonly maxLength?: number;
  /** Other ways people name this column in a spreadsheet or CSV header. */
  readonly aliases: readonly string[];
}

function field<Name extends string>(
  name: Name,
  label: string,
  looks: InputLooks,
  aliases: readonly string[],
  maxLength?: number,
): InputField<Name> {
  const kind: InputKind =
    looks === 'phone' || looks === 'email' || looks === 'zip' || looks === 'state' ? looks : 'text';
  const base = { name, label, kind, looks, aliases };
  return maxLength === undefined ? base : { ...base, maxLength };
}

/** The value an input gives for a meaning, under whichever name the operation uses for it. */
export function inputValue(
  fields: readonly InputField[],
  input: Readonly<Record<string, string>>,
  looks: InputLooks,
): string | undefined {
  const found = fields.find((f) => f.looks === looks);
  return found ? input[found.name] : undefined;
}

const PHONE_ALIASES = ['phone', 'phone number', 'phonenumber', 'telephone', 'tel', 'mobile', 'cell'];
const LAST_NAME_ALIASES = ['last name', 'lastname', 'last_name', 'surname', 'lname', 'family name'];

export const Phone = () => field('Phone', 'Phone', 'phone', PHONE_ALIASES);
export const Email = () =>
  field('Email', 'E-mail', 'email', ['email', 'e-mail', 'email address', 'mail'], 100);
export const FullName = () => field('FullName', 'Full name', 'full-name', ['full name', 'fullname', 'name']);
export const FName = () =>
  field(
    'FName',
    'First name',
    'first-name',
    ['first name', 'firstname', 'first_name', 'fname', 'given name'],
    15,
  );
export const LName = (maxLength: 15 | 20) =>
  field('LName', 'Last name', 'last-name', LAST_NAME_ALIASES, maxLength);
export const Address1 = (maxLength: 60 | 64) =>
  field(
    'Address1',
    'Address line 1',
    'address',
    ['address', 'address1', 'address 1', 'address line 1', 'street', 'street address'],
    maxLength,
  );
export const Zip = () =>
  field('Zip', 'ZIP code', 'zip', ['zip', 'zip code', 'zipcode', 'postal code', 'postcode']);
export const City = () => field('City', 'City', 'city', ['city', 'town'], 28);
export const State = () => field('State', 'State', 'state', ['state', 'st', 'state code', 'province']);
// TCPA Verify spells its two inputs in lowercase.
export const tcpaPhone = () => field('phone', 'Phone', 'phone', PHONE_ALIASES);
export const tcpaLastName = () => field('last_name', 'Last name', 'last-name', LAST_NAME_ALIASES);
