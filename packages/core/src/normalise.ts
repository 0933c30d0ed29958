// Turns what people type in spreadsheets and CSVs into what the API accepts, before any check:
// "(555) 010-2030" and 5550102030 (a number cell) become "5550102030"; a ZIP that lost its
// leading zero (2134) or carries ZIP+4 becomes five digits. Anything it cannot mend is left
// for validation to report. Normalising twice gives the same result as normalising once.
// Invisible and control characters (a zero-width space pasted with a name, a NUL from a broken
// export) are removed first: they can only make the service miss, and a miss is still paid for.
// Every pattern here runs in linear time; validate() checks lengths before calling this.
import { type InputKind, PHONE_FORMATTING as PHONE_FORMATTING_CLASS } from './vocabulary/field-kinds.js';

/** A raw value as it may arrive from a cell, a CSV, a prompt or JSON. */
export type RawValue = unknown;

/** Normalised text, or `undefined` for "not given", or a reason the value cannot be text. */
export type Normalised = { readonly value: string | undefined } | { readonly problem: string };

export function normaliseValue(kind: InputKind, raw: RawValue): Normalised {
  const text = asText(raw);
  if (typeof text !== 'string') return text;
  const trimmed = removeInvisible(text).trim().replace(/\s+/g, ' ');
  if (trimmed === '') return { value: undefined };
  switch (kind) {
    case 'phone':
      return { value: normalisePhone(trimmed) };
    case 'zip':
      return { value: normaliseZip(trimmed) };
    case 'state':
      return { value: trimmed.toUpperCase() };
    case 'email':
      return { value: normaliseEmail(trimmed) };
    case 'text':
      return { value: trimmed };
  }
}

// C0 controls except the whitespace ones (tab, line feed, vertical tab, form feed, carriage return:
// those become spaces below), DEL and C1 controls, zero-width space/non-joiner/joiner, word
// joiner, byte order mark, soft hyphen, and the direction marks, embeddings, overrides and isolates.
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** The text without invisible and control characters. */
export function removeInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

function asText(raw: RawValue): string | { value: undefined } | { problem: string } {
  if (raw === null || raw === undefined) return { value: undefined };
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return { problem: `must be text or a number; got ${String(raw)}` };
    // Spreadsheets hand over phone numbers and ZIP codes typed as digits as numbers; print
    // integers in full rather than in exponent form.
    return Number.isInteger(raw) ? raw.toLocaleString('en-US', { useGrouping: false }) : String(raw);
  }
  if (typeof raw === 'boolean') return { problem: `must be text; got ${String(raw)}` };
  if (raw instanceof Date) return { problem: 'must be text; got a date' };
  if (Array.isArray(raw)) return { problem: 'must be one value; got a list' };
  return { problem: `must be text; got ${typeof raw === 'object' ? 'an object' : typeof raw}` };
}

// Formatting people put in phone numbers; any other character is left for validation to reject.
const PHONE_FORMATTING = new RegExp(PHONE_FORMATTING_CLASS, 'g');

function normalisePhone(text: string): string {
  const digits = text.replace(PHONE_FORMATTING, '');
  // Nothing but formatting ("-", "()"): keep it for validation to report what was given.
  if (digits === '') return text;
  // A leading country code 1 on an 11-digit North American number.
  if (/^1\d{10}$/.test(digits)) return digits.slice(1);
  return digits;
}

function normaliseZip(text: string): string {
  // 02134-1234, 02134 1234 or 021341234: keep the five-digit ZIP.
  const plus4 = /^(\d{3,5})[-\s]?(\d{4})$/.exec(text);
  if (plus4?.[1] && (plus4[1].length === 5 || text.includes('-') || text.includes(' '))) {
    return plus4[1].padStart(5, '0');
  }
  // A ZIP+4 stored as a number that lost its leading zero: 21341234.
  if (/^\d{8}$/.test(text)) return `0${text.slice(0, 4)}`;
  // A ZIP stored as a number that lost leading zeros: 2134 → 02134, 501 → 00501.
  if (/^\d{3,4}$/.test(text)) return text.padStart(5, '0');
  return text;
}

function normaliseEmail(text: string): string {
  // The domain is case-insensitive; the local part, strictly, is not, so it is kept.
  const at = text.lastIndexOf('@');
  if (at < 0) return text;
  return text.slice(0, at + 1) + text.slice(at + 1).toLowerCase();
}

/** Nothing given: undefined, null, or text that is only whitespace. */
export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** A name with case, spaces and punctuation taken out, for loose matching: `Phone Lookup` -> `phonelookup`. */
export function squash(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, '');
}
