// Input fields as the API description's "Input fields" and "Limits" tables give them.
// Per-operation bounds differ (LName 15 for Phone Append, 20 elsewhere), so an operation
// picks its fields from these factories rather than sharing one fixed definition.

/** How a value is normalised and checked. */
export type InputKind = 'phone' | 'email' | 'zip' | 'state' | 'text';

export interface InputField {
  /** The JSON body name, exactly as the API spells it (`Phone`, or `phone` for TCPA Verify). */
  readonly name: string;
  /** Words for people: prompts, column headers, CLI help. */
  readonly label: string;
  readonly kind: InputKind;
  /** Maximum length in characters, where the Limits table gives one. */
  readonly maxLength?: number;
  /** Other ways people name this column in a spreadsheet or CSV header. */
  readonly aliases: readonly string[];
}

function field(
  name: string,
  label: string,
  kind: InputKind,
  aliases: readonly string[],
  maxLength?: number,
): InputField {
  return maxLength === undefined ? { name, label, kind, aliases } : { name, label, kind, aliases, maxLength };
}

const PHONE_ALIASES = ['phone', 'phone number', 'phonenumber', 'telephone', 'tel', 'mobile', 'cell'];
const LAST_NAME_ALIASES = ['last name', 'lastname', 'last_name', 'surname', 'lname', 'family name'];

export const Phone = () => field('Phone', 'Phone', 'phone', PHONE_ALIASES);
export const Email = () =>
  field('Email', 'E-mail', 'email', ['email', 'e-mail', 'email address', 'mail'], 100);
export const FullName = () => field('FullName', 'Full name', 'text', ['full name', 'fullname', 'name']);
export const FName = () =>
  field('FName', 'First name', 'text', ['first name', 'firstname', 'first_name', 'fname', 'given name'], 15);
export const LName = (maxLength: 15 | 20) =>
  field('LName', 'Last name', 'text', LAST_NAME_ALIASES, maxLength);
export const Address1 = (maxLength: 60 | 64) =>
  field(
    'Address1',
    'Address line 1',
    'text',
    ['address', 'address1', 'address 1', 'address line 1', 'street', 'street address'],
    maxLength,
  );
export const Zip = () =>
  field('Zip', 'ZIP code', 'zip', ['zip', 'zip code', 'zipcode', 'postal code', 'postcode']);
export const City = () => field('City', 'City', 'text', ['city', 'town'], 28);
export const State = () => field('State', 'State', 'state', ['state', 'st', 'state code', 'province']);
// TCPA Verify spells its two inputs in lowercase.
export const tcpaPhone = () => field('phone', 'Phone', 'phone', PHONE_ALIASES);
export const tcpaLastName = () => field('last_name', 'Last name', 'text', LAST_NAME_ALIASES);
