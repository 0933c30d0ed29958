// API key hygiene. A key that holds a space, a line break or an invisible character is a copy
// mistake (`$(cat keyfile)`, a paste from a chat): it cannot be what the provider issued, and an
// HTTP library that refuses such a header may quote it in its error text. So it is refused before
// any request, by a message that never holds the key. The scrubber is the last line of defence
// behind the rule that messages never hold the key: every string a client writes passes through it.

// Whitespace (all of Unicode's, as \s knows it), C0 and C1 controls, DEL, and the invisible
// format characters people paste without seeing them.
const SPACE = /\s/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad]/;

/** Stands for the key in any text the scrubber cleans. */
export const KEY_HIDDEN = '[key hidden]';

/**
 * A problem with the key as a message that does not contain it, or undefined when the key is
 * usable. Checked before any request is built.
 */
export function checkApiKey(key: string): string | undefined {
  if (key.trim() === '') return 'No API key is set';
  for (let i = 0; i < key.length; i++) {
    const ch = key.charAt(i);
    const what = describeBadCharacter(ch);
    if (what)
      return `The API key has ${what} in it (character ${i + 1} of ${key.length}); a key is one word of printable characters. Copy it again, without spaces or line breaks.`;
  }
  return undefined;
}

function describeBadCharacter(ch: string): string | undefined {
  if (ch === '\n' || ch === '\r') return 'a line break';
  if (ch === '\t') return 'a tab';
  if (SPACE.test(ch)) return 'a space';
  if (CONTROL.test(ch)) return 'a control character';
  if (INVISIBLE.test(ch)) return 'an invisible character';
  if (ch.charCodeAt(0) > 0x7e) return 'a character that is not plain ASCII';
  return undefined;
}

/**
 * Shorter "secrets" are not scrubbed: replacing every occurrence of a few common characters would
 * mangle every message, and no issued key is that short.
 */
export const MIN_SCRUBBED_LENGTH = 6;

/**
 * Keys whose letters and digits number at least this many are also found in any spelling: with
 * their dashes or spaces removed or moved, in another case, URL- or JSON-escaped. Shorter ones
 * would match ordinary text.
 */
const LOOSE_MIN_ALPHANUMERICS = 16;

// What may stand between two of a key's letters or digits in another spelling of it: a dash, space,
// dot, underscore, colon, slash or plus, a URL escape (%2D) or a JSON one (\u002d, \n). Never a
// quote, comma or bracket, so a match never spans two JSON strings (a scrubbed JSON text stays JSON).
const SEPARATOR = String.raw`(?:[\s\-_.:/+]|%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|\\[nrt])`;

/**
 * A function that replaces every occurrence of each secret in a text with `[key hidden]`: as is,
 * JSON-escaped and URL-encoded, (for a key pasted with spaces or line breaks) each of its parts,
 * and (for a key of 16 letters and digits or more) any spelling of it: its letters and digits in
 * order, in any case, with up to two separators between each two (dashes removed, spaces added).
 * The exact forms are plain string search; the loose one is one pattern of fixed characters with
 * bounded gaps: linear in the text.
 */
export function createScrubber(secrets: readonly string[]): (text: string) => string {
  const forms = new Set<string>();
  const loose: RegExp[] = [];
  for (const secret of secrets) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a key pasted with control characters is split at them
    const variants = [secret, secret.trim(), ...secret.split(/[\s\u0000-\u001f\u007f]+/)];
    for (const variant of variants) {
      if (variant.length < MIN_SCRUBBED_LENGTH) continue;
      forms.add(variant);
      forms.add(JSON.stringify(variant).slice(1, -1));
      const encoded = urlEncoded(variant);
      if (encoded !== undefined) forms.add(encoded);
    }
    const core = secret.replace(/[^0-9A-Za-z]/g, '');
    if (core.length >= LOOSE_MIN_ALPHANUMERICS) {
      loose.push(new RegExp([...core].join(`${SEPARATOR}{0,2}`), 'gi'));
    }
  }
  // Longest first, so that a form containing another is replaced whole.
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  return (text: string) => {
    let out = text;
    for (const form of ordered) if (out.includes(form)) out = out.split(form).join(KEY_HIDDEN);
    for (const pattern of loose) out = out.replace(pattern, KEY_HIDDEN);
    return out;
  };
}

function urlEncoded(text: string): string | undefined {
  try {
    return encodeURIComponent(text);
  } catch {
    // A lone surrogate cannot be URL-encoded, so no URL holds it in encoded form either.
    return undefined;
  }
}
