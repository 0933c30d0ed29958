// What each kind of input field accepts, in one table: the pattern validation checks (after
// normalisation, and after the length bound, so that no pattern runs on an over-long value), the
// hint shown to people (Sheets' argument help, prompts), and the form it takes in the OpenAPI
// document. Every pattern is linear: no nested or overlapping quantifiers.

/** How a value is normalised and checked. */
export type InputKind = 'phone' | 'email' | 'zip' | 'state' | 'text';

export interface FieldKind {
  /** What a whole, normalised value must match; undefined for free text. */
  readonly pattern: RegExp | undefined;
  /** A value of this kind in a few words: "10 digits". */
  readonly hint: string;
  /** Why `value` does not match, after the field's name: "must be 5 digits; got \"123\"". */
  readonly problem: (value: string) => string;
  /** The JSON Schema keywords of the OpenAPI document for this kind. */
  readonly openapi: { readonly pattern?: string; readonly format?: string };
}

const PHONE = /^[0-9]{10}$/;
const ZIP = /^[0-9]{5}$/;
const STATE = /^[A-Z]{2}$/;
// local@domain.tld. Linear: the local part cannot hold @, the first domain label cannot hold a dot,
// so there is only one way to match and nothing to backtrack over. (The earlier
// /^[^\s@]+@[^\s@]+\.[^\s@]+$/ backtracked quadratically: 10 s of CPU for a 120 KB cell.)
const EMAIL = /^[^\s@]+@[^\s@.]+\.[^\s@]+$/;

export const FIELD_KINDS: Readonly<Record<InputKind, FieldKind>> = {
  phone: {
    pattern: PHONE,
    hint: '10 digits',
    // "Numeric only" says more than a length about "555-CALL", so it is said first.
    problem: (value) =>
      /^[0-9]+$/.test(value)
        ? `must be 10 digits; got ${value.length}`
        : `must be numeric only (10 digits); got ${shown(value)}`,
    openapi: { pattern: PHONE.source },
  },
  email: {
    pattern: EMAIL,
    hint: 'an e-mail address',
    problem: (value) => `must be an e-mail address; got ${shown(value)}`,
    // The shape check is ours; the document states the standard format instead.
    openapi: { format: 'email' },
  },
  zip: {
    pattern: ZIP,
    hint: '5 digits',
    problem: (value) => `must be 5 digits; got ${shown(value)}`,
    openapi: { pattern: ZIP.source },
  },
  state: {
    pattern: STATE,
    hint: '2-letter state abbreviation',
    problem: (value) => `must be a 2-letter state abbreviation; got ${shown(value)}`,
    openapi: { pattern: STATE.source },
  },
  text: { pattern: undefined, hint: 'text', problem: () => 'is not valid', openapi: {} },
};

/** A value quoted for a message, cut to 40 characters. */
function shown(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 37)}...` : text);
}
