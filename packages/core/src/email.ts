// What an e-mail address must look like before it is sent: an address the service can deliver
// to, or look up, or verify. A cell that is anything else ("mailto:j@x.com", "j@x.com;",
// "j@x..com", "n/a@n/a.n/a") can only buy an answer of "invalid" or "no match", and both are paid
// for, so it is refused here, naming the rule it breaks. Every client (CLI, Sheets, VS Code, SDK)
// reaches this through validate(), so they all refuse the same values with the same words.
//
// Decisions (a practical subset of RFC 5321/5322, with RFC 6531/IDNA for non-ASCII), kept here:
// - Normalisation (normalise.ts) only trims, removes invisible characters, collapses whitespace
//   and lower-cases the domain; the part before the @ keeps its case. Nothing else the user typed
//   is changed: wrappings ("mailto:", "<j@x.com>", "Name <j@x.com>") and separators ("j@x.com;",
//   "j@x.com, k@y.com") are refused, not stripped, because the cell then holds something other
//   than an address and the user should see and mend it at the source.
// - The part before the @ (at most 64 bytes in UTF-8) is a dot-atom: letters, digits and
//   ! # $ % & ' * + - / = ? ^ _ ` { | } ~, in runs separated by single dots, with no dot at either
//   end. Plus-addressing (j+tag@x.com) and apostrophes (o'brien@x.ie) are accepted. Quoted forms
//   ("j k"@x.com) and comments are refused: no mailbox a marketer holds needs them, and a quote in
//   a cell is nearly always a pasted display name.
// - The domain is a host name: two or more labels separated by single dots, each of 1 to 63
//   letters, digits and hyphens, neither starting nor ending with a hyphen, no dot at either end.
//   The last label (the top-level domain) is letters only, two or more (.com, .museum,
//   .photography), or an IDNA A-label (xn--p1ai). Single-label hosts (j@localhost), numeric
//   top-level domains (j@x.123, j@1.2.3.4) and address literals (j@[1.2.3.4]) are refused:
//   none is a domain on the public Internet that the service can have data for.
// - Internationalised addresses are accepted: letters, marks and digits of any script are allowed
//   wherever an ASCII letter is, before and after the @ (j.müller@bücher.de, 用户@例子.广告), as
//   mail servers with SMTPUTF8 and IDN deliver to them. Other non-ASCII characters (symbols,
//   full-width @ or dots, non-breaking spaces) are refused. A non-ASCII label's 63 limit is
//   counted in characters here; its A-label form is the service's to check.
// - The whole address is at most 254 characters (RFC 5321's path limit); the API's own bound of
//   100 characters for Email is checked first, so in practice that one applies.
// - Linear time: every check is one pass over the text or an anchored pattern without nested or
//   overlapping quantifiers; a 100 KB value is read once, never backtracked over.

/** The rules an e-mail address can break, in the order they are checked. */
export type EmailRule =
  | 'length'
  | 'bare'
  | 'one-address'
  | 'at-sign'
  | 'spaces'
  | 'local-empty'
  | 'local-chars'
  | 'local-dots'
  | 'local-length'
  | 'domain-empty'
  | 'domain-literal'
  | 'domain-chars'
  | 'domain-dots'
  | 'domain-hyphen'
  | 'label-length'
  | 'top-level';

/** Each rule in words, to follow the field's name: "Email must have exactly one @". */
export const EMAIL_RULES: Readonly<Record<EmailRule, string>> = {
  length: 'must be at most 254 characters (bytes in UTF-8)',
  bare: 'must be the address alone, without "mailto:", <> or a display name',
  'one-address': 'must be one address, not a list (no second address, "," or ";")',
  'at-sign': 'must have exactly one @',
  spaces: 'must have no spaces',
  'local-empty': 'must have a mailbox name before the @',
  'local-chars': "must have only letters, digits and . ! # $ % & ' * + - / = ? ^ _ ` { | } ~ before the @",
  'local-dots': 'must have no dot at either end of the part before the @, and no two dots in a row',
  'local-length': 'must have at most 64 characters (bytes in UTF-8) before the @',
  'domain-empty': 'must have a domain after the @',
  'domain-literal': 'must have a domain name after the @, not an IP address in []',
  'domain-chars': 'must have only letters, digits, hyphens and dots after the @',
  'domain-dots': 'must have no dot at either end of the domain, and no two dots in a row',
  'domain-hyphen': 'must have no hyphen at either end of a part of the domain',
  'label-length': 'must have at most 63 characters between two dots of the domain',
  'top-level': 'must end in a top-level domain of letters, such as .com',
};

/** Why an address is refused: the rule, and the character or length that broke it. */
export interface EmailProblem {
  readonly rule: EmailRule;
  /** The first character a character rule refused. */
  readonly found?: string;
  /** The length a length rule refused. */
  readonly length?: number;
}

const MAX_ADDRESS = 254;
const MAX_LOCAL_BYTES = 64;
const MAX_LABEL = 63;

// Single characters or anchored runs of one class: nothing here can backtrack.
const MAILTO = /^mailto:/i;
const WHITESPACE = /\s/;
const SEPARATOR = /[\s,;]/;
const TRAILING_SEPARATOR = /[,;]$/;
const LOCAL_ASCII = /^[A-Za-z0-9.!#$%&'*+\-/=?^_`{|}~]$/;
const DOMAIN_ASCII = /^[A-Za-z0-9.-]$/;
const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
const TLD_ASCII = /^[A-Za-z]{2,}$/;
const TLD_A_LABEL = /^xn--[A-Za-z0-9-]+$/i;
const TLD_LETTERS = /^[\p{L}\p{M}]+$/u;
// biome-ignore lint/suspicious/noControlCharactersInRegex: "not ASCII" is the point
const NON_ASCII = /[^\u0000-\u007f]/;

/**
 * The first rule `address` breaks, or undefined for an address the service can deliver to.
 * Give it a normalised value (normaliseValue('email', ...)); it never throws and runs in time
 * linear in the length of its input.
 */
export function checkEmail(address: string): EmailProblem | undefined {
  const length = utf8Length(address);
  if (length > MAX_ADDRESS) return { rule: 'length', length };
  if (MAILTO.test(address) || address.includes('<') || address.includes('>')) return { rule: 'bare' };
  const at = address.indexOf('@');
  const second = at < 0 ? -1 : address.indexOf('@', at + 1);
  if ((second >= 0 && SEPARATOR.test(address)) || TRAILING_SEPARATOR.test(address)) {
    return { rule: 'one-address' };
  }
  if (at < 0 || second >= 0) return { rule: 'at-sign' };
  if (WHITESPACE.test(address)) return { rule: 'spaces' };
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  return checkLocal(local) ?? checkDomain(domain);
}

function checkLocal(local: string): EmailProblem | undefined {
  if (local === '') return { rule: 'local-empty' };
  for (const ch of local) {
    if (!LOCAL_ASCII.test(ch) && !(NON_ASCII.test(ch) && WORD_CHAR.test(ch))) {
      return { rule: 'local-chars', found: ch };
    }
  }
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return { rule: 'local-dots' };
  const bytes = utf8Length(local);
  if (bytes > MAX_LOCAL_BYTES) return { rule: 'local-length', length: bytes };
  return undefined;
}

function checkDomain(domain: string): EmailProblem | undefined {
  if (domain === '') return { rule: 'domain-empty' };
  if (domain.startsWith('[')) return { rule: 'domain-literal' };
  for (const ch of domain) {
    if (!DOMAIN_ASCII.test(ch) && !(NON_ASCII.test(ch) && WORD_CHAR.test(ch))) {
      return { rule: 'domain-chars', found: ch };
    }
  }
  if (domain.startsWith('.') || domain.endsWith('.') || domain.includes('..')) return { rule: 'domain-dots' };
  const labels = domain.split('.');
  for (const label of labels) {
    if (label.startsWith('-') || label.endsWith('-')) return { rule: 'domain-hyphen' };
    const chars = codePoints(label);
    if (chars > MAX_LABEL) return { rule: 'label-length', length: chars };
  }
  const tld = labels[labels.length - 1] ?? '';
  if (labels.length < 2 || !isTopLevel(tld)) return { rule: 'top-level' };
  return undefined;
}

function isTopLevel(label: string): boolean {
  if (TLD_ASCII.test(label) || TLD_A_LABEL.test(label)) return true;
  return NON_ASCII.test(label) && TLD_LETTERS.test(label);
}

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Bytes of `text` in UTF-8, as SMTP counts them (TextEncoder is not available everywhere core runs). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}
