// What each kind of input field accepts, in one table: the pattern validation checks (after
// normalisation, and after the length bound, so that no pattern runs on an over-long value), the
// hint shown to people (Sheets' argument help, prompts), and the form it takes in the OpenAPI
// document. Every pattern is linear: no nested or overlapping quantifiers. E-mail addresses have
// more rules than a pattern says well, so they are checked by checkEmail (email.ts), which names
// the rule an address breaks.
import { checkEmail, EMAIL_RULES } from '../email.js';

/** How a value is normalised and checked. */
export type InputKind = 'phone' | 'email' | 'zip' | 'state' | 'text';

export interface FieldKind {
  /** What a whole, normalised value must match; undefined for free text and e-mail addresses. */
  readonly pattern: RegExp | undefined;
  /** A check beyond the pattern, for what one pattern cannot say well (e-mail addresses); linear. */
  readonly accepts?: (value: string) => boolean;
  /** A value of this kind in a few words: "10 digits". */
  readonly hint: string;
  /**
   * Why `value` (normalised) does not match, after the field's name: "must be 5 digits; got
   * \"123\"". The rule is judged on `value`, but the cell is quoted as the person typed it
   * (`typed`, default `value`): `got "n/a"`, not the "na" that normalisation left of it.
   */
  readonly problem: (value: string, typed?: string) => string;
  /** The JSON Schema keywords of the OpenAPI document for this kind. */
  readonly openapi: { readonly pattern?: string; readonly format?: string };
  /**
   * What a person or an assistant may give, before normalisation mends it (normalise.ts): the
   * words of a tool's field description, and the pattern of its schema, which accepts every form
   * normalisation turns into a valid value (test/field-kinds-typed.test.ts holds the two together).
   */
  readonly typed: { readonly words: string; readonly pattern?: string; readonly format?: string };
}

/** The formatting people put in phone numbers, which normalisation removes (normalise.ts). */
export const PHONE_FORMATTING = '[\\s().+/-]';

const PHONE = /^[0-9]{10}$/;
const ZIP = /^[0-9]{5}$/;
const STATE = /^[A-Z]{2}$/;
export const FIELD_KINDS: Readonly<Record<InputKind, FieldKind>> = {
  phone: {
    pattern: PHONE,
    hint: '10 digits',
    // "Numeric only" says more than a length about "555-CALL", so it is said first.
    problem: (value, typed = value) =>
      /^[0-9]+$/.test(value)
        ? `must be 10 digits; got ${value.length}`
        : `must be numeric only (10 digits); got ${shown(typed)}`,
    openapi: { pattern: PHONE.source },
    typed: {
      words: '10 digits, as typed: "(555) 010-2030", "555.010.2030" and "+1 555 010 2030" are accepted',
      // Formatting anywhere, an optional leading country code 1, then ten digits.
      pattern: `^${PHONE_FORMATTING}*(?:1${PHONE_FORMATTING}*)?(?:[0-9]${PHONE_FORMATTING}*){10}$`,
    },
  },
  email: {
    pattern: undefined,
    accepts: (value) => checkEmail(value) === undefined,
    hint: 'an e-mail address',
    // The rule broken, in words (email.ts), then what was given: the length for a length rule,
    // else the value, with the character a character rule refused.
    problem: (value, typed = value) => {
      const broken = checkEmail(value);
      if (!broken) return 'is not valid';
      const rule = EMAIL_RULES[broken.rule];
      if (broken.length !== undefined) return `${rule}; got ${broken.length}`;
      const found = broken.found === undefined ? '' : `, not ${JSON.stringify(broken.found)}`;
      return `${rule}${found}; got ${shown(typed)}`;
    },
    // The shape check is ours; the document states the standard format instead.
    openapi: { format: 'email' },
    typed: { words: 'an e-mail address such as jane.doe@example.com', format: 'email' },
  },
  zip: {
    pattern: ZIP,
    hint: '5 digits',
    problem: (value, typed = value) => `must be 5 digits; got ${shown(typed)}`,
    openapi: { pattern: ZIP.source },
    typed: {
      words: '5 digits; ZIP+4 ("02134-1234") and a ZIP that lost its leading zero ("2134") are accepted',
      pattern: '^\\s*(?:[0-9]{3,5}|[0-9]{5}(?:-|\\s+)?[0-9]{4}|[0-9]{3,4}(?:-|\\s+)[0-9]{4}|[0-9]{8})\\s*$',
    },
  },
  state: {
    pattern: STATE,
    hint: '2-letter state abbreviation',
    problem: (value, typed = value) => `must be a 2-letter state abbreviation; got ${shown(typed)}`,
    openapi: { pattern: STATE.source },
    typed: { words: 'a 2-letter abbreviation such as "CA", in any case', pattern: '^\\s*[A-Za-z]{2}\\s*$' },
  },
  text: {
    pattern: undefined,
    hint: 'text',
    problem: () => 'is not valid',
    openapi: {},
    typed: { words: '' },
  },
};

/** Values up to this length are quoted whole in a message; longer ones only by their start. */
const SHOWN_WHOLE = 20;

/**
 * A value quoted for a message: whole when short (a phone, a ZIP, "n/a"), else its first four
 * characters and its length. Messages reach terminals, logs and AI models; a long cell may be a
 * secret or someone's data (a key pasted into the wrong column, a whole address), and the row's
 * number already says where it is.
 */
function shown(text: string): string {
  if (text.length <= SHOWN_WHOLE) return JSON.stringify(text);
  return `${JSON.stringify(`${text.slice(0, 4)}…`)} (${text.length} characters)`;
}
