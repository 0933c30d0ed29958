// Whether a kept answer holds a person (issue 38): the text of what a store keeps (a journal line,
// a history entry, a database row's key and outcome as JSON) is searched for the person's
// identities in every spelling an answer or a request may carry them, so that one rule serves every
// store of every client. An answer holds a person when its request or its answer does, anywhere:
// the request key, the record, the body as it arrived (JSON inside JSON), an extra field.
// - a phone: a run of digits and phone formatting (core's normalisation's characters) whose 10
//   digits, or 1 and 10 digits, start and end where its groups do: "(555) 010-2030",
//   "+1.555.010.2030", "5550102030"; not ten digits in the middle of a longer number;
// - an e-mail: the address around each "@", compared in lower case; a prefix such as "mailto:" or
//   "?email=" before it is passed over;
// - a name and address: every word of the name and every word of the street line, as words (in
//   lower case) anywhere in the text: an answer spells the address in parts (House, Street,
//   StrType), so the words are not looked for side by side.
// JSON's \uXXXX escapes are read as the characters they stand for first.
// Runs in linear time in the text for phones and e-mails; names cost a pass over the text's words.
import { canonicalWords, type Identity } from './identity.js';

const LOCAL_CHAR = /[A-Za-z0-9!#$%&'*+/=?^_`{|}~.\-\u0080-\uffff]/;
const DOMAIN_CHAR = /[A-Za-z0-9.\-\u0080-\uffff]/;
// Characters after which the rest of a local part may be the address itself ("?email=jane@...").
const LOCAL_RESTART = /[=/&?'|{}`~^!#$%*]/;
// Ten digits at least, with formatting between: shorter runs (a house number, a ZIP) are not looked at.
const PHONE_RUN = /[0-9][0-9\s().+/-]{8,}[0-9]/g;
const DIGITS = /^[0-9]+$/;
const ESCAPE = /\\u([0-9a-fA-F]{4})/g;

export class IdentityMatcher {
  private readonly phones = new Set<string>();
  private readonly emails = new Set<string>();
  private readonly names: { readonly identity: Identity; readonly words: readonly string[] }[] = [];
  /** The longest word of each name and address: a text without one of them holds none. */
  private readonly asciiTrigger: RegExp | undefined;
  /** The same for words with other letters (Unicode classes, on the text in lower case). */
  private readonly otherTrigger: RegExp | undefined;
  private readonly byValue = new Map<string, Identity>();

  constructor(readonly identities: readonly Identity[]) {
    const triggerWords = new Set<string>();
    for (const identity of identities) {
      this.byValue.set(`${identity.kind}:${identity.value}`, identity);
      if (identity.kind === 'phone') this.phones.add(identity.value);
      else if (identity.kind === 'email') this.emails.add(identity.value);
      else {
        const words = identity.value.split(/[| ]/).filter((w) => w !== '');
        this.names.push({ identity, words });
        const longest = words.reduce((a, b) => (b.length > a.length ? b : a), '');
        triggerWords.add(longest.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      }
    }
    // ASCII words are looked for without the Unicode flag, case-insensitively, on the text as it is
    // (about twice as fast on a journal); a word with other letters on the text in lower case.
    const ascii = [...triggerWords].filter((w) => /^[a-z0-9]*$/.test(w));
    const other = [...triggerWords].filter((w) => !/^[a-z0-9]*$/.test(w));
    this.asciiTrigger =
      ascii.length === 0
        ? undefined
        : new RegExp(`(?<![A-Za-z0-9])(?:${ascii.join('|')})(?![A-Za-z0-9])`, 'i');
    this.otherTrigger =
      other.length === 0
        ? undefined
        : new RegExp(`(?<![\\p{L}\\p{N}])(?:${other.join('|')})(?![\\p{L}\\p{N}])`, 'u');
  }

  /** The first identity the text holds, or undefined. */
  find(text: string): Identity | undefined {
    const plain = text.includes('\\u')
      ? text.replace(ESCAPE, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)))
      : text;
    return this.findPhone(plain) ?? this.findEmail(plain) ?? this.findName(plain);
  }

  /** Every identity the text holds (for `held`: which of the person's identities an answer names). */
  findAll(text: string): Identity[] {
    const found: Identity[] = [];
    for (const identity of this.identities) {
      if (new IdentityMatcher([identity]).find(text)) found.push(identity);
    }
    return found;
  }

  private findPhone(text: string): Identity | undefined {
    if (this.phones.size === 0) return undefined;
    PHONE_RUN.lastIndex = 0;
    for (let match = PHONE_RUN.exec(text); match !== null; match = PHONE_RUN.exec(text)) {
      const run = match[0];
      // Digits alone (the common case: a key, a timestamp) are one group: the whole run or nothing.
      if (DIGITS.test(run)) {
        const ten = run.length === 10 ? run : run.length === 11 && run[0] === '1' ? run.slice(1) : undefined;
        if (ten !== undefined && this.phones.has(ten)) return this.byValue.get(`phone:${ten}`);
        continue;
      }
      let digits = '';
      const starts = new Set<number>([0]);
      for (const ch of run) {
        if (ch >= '0' && ch <= '9') digits += ch;
        else starts.add(digits.length);
      }
      starts.add(digits.length);
      for (const start of starts) {
        if (starts.has(start + 10) && this.phones.has(digits.slice(start, start + 10))) {
          return this.byValue.get(`phone:${digits.slice(start, start + 10)}`);
        }
        if (
          digits[start] === '1' &&
          starts.has(start + 11) &&
          this.phones.has(digits.slice(start + 1, start + 11))
        ) {
          return this.byValue.get(`phone:${digits.slice(start + 1, start + 11)}`);
        }
      }
    }
    return undefined;
  }

  private findEmail(text: string): Identity | undefined {
    if (this.emails.size === 0) return undefined;
    for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
      let end = at + 1;
      while (end < text.length && DOMAIN_CHAR.test(text[end] as string)) end++;
      const domain = text
        .slice(at + 1, end)
        .replace(/\.+$/, '')
        .toLowerCase();
      if (domain === '') continue;
      let start = at;
      while (start > 0 && LOCAL_CHAR.test(text[start - 1] as string)) start--;
      for (let from = start; from < at; from++) {
        if (from > start && !LOCAL_RESTART.test(text[from - 1] as string)) continue;
        const address = `${text.slice(from, at).toLowerCase()}@${domain}`;
        if (this.emails.has(address)) return this.byValue.get(`email:${address}`);
      }
    }
    return undefined;
  }

  private findName(text: string): Identity | undefined {
    const triggered =
      this.asciiTrigger?.test(text) === true || this.otherTrigger?.test(text.toLowerCase()) === true;
    if (!triggered) return undefined;
    const lower = text.toLowerCase();
    const words = new Set(canonicalWords(lower).split(' '));
    for (const { identity, words: needed } of this.names) {
      if (needed.every((word) => words.has(word))) return identity;
    }
    return undefined;
  }
}
