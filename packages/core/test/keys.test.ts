// Key hygiene: keys that can only be copy mistakes are refused before any request, by messages that
// never hold the key; the scrubber removes the key from any text, in every form it may take there.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildRequest, checkApiKey, createScrubber, KEY_HIDDEN } from '../src/index.js';
import { KEY, op, SETTINGS } from './api.js';

describe('checkApiKey', () => {
  it('accepts a key of printable characters', () => {
    expect(checkApiKey(KEY)).toBeUndefined();
    expect(checkApiKey('abc-DEF_123.456~+/=')).toBeUndefined();
  });

  it.each([
    ['', 'No API key is set'],
    ['   ', 'No API key is set'],
    [`${KEY}\n`, 'a line break'],
    [`${KEY.slice(0, 5)}\r\n${KEY.slice(5)}`, 'a line break'],
    [` ${KEY}`, 'a space'],
    [`${KEY.slice(0, 5)}\t${KEY.slice(5)}`, 'a tab'],
    [`${KEY}\u00a0`, 'a space'],
    [`${KEY}\u0000`, 'a control character'],
    [`\u200b${KEY}`, 'an invisible character'],
    [`${KEY}\ufeff`, 'a space'],
    [`${KEY}é`, 'not plain ASCII'],
  ])('refuses %j, saying why and where, without the key', (key, why) => {
    const problem = checkApiKey(key);
    expect(problem).toContain(why);
    expect(problem).not.toContain(KEY);
    expect(problem).not.toContain(KEY.slice(0, 8));
  });

  it('names the position of the bad character', () => {
    expect(checkApiKey('abcdef\nghij')).toMatch(/character 7 of 11/);
  });

  it('is what buildRequest checks: such a key is never sent', () => {
    const built = buildRequest(
      op('phone-lookup'),
      { Phone: '5550102030' },
      { ...SETTINGS, apiKey: `${KEY}\n` },
    );
    expect(built.ok).toBe(false);
    expect(JSON.stringify(built)).not.toContain(KEY);
  });
});

describe('createScrubber', () => {
  const scrub = createScrubber([KEY]);

  it('replaces the key wherever it is', () => {
    expect(scrub(`key ${KEY} and again ${KEY}.`)).toBe(`key ${KEY_HIDDEN} and again ${KEY_HIDDEN}.`);
    expect(scrub('nothing secret')).toBe('nothing secret');
  });

  it('replaces its JSON-escaped and URL-encoded forms', () => {
    const odd = 'abc"def\\ghi/jkl+mno=';
    const s = createScrubber([odd]);
    expect(s(JSON.stringify({ k: odd }))).toBe(`{"k":"${KEY_HIDDEN}"}`);
    expect(s(`https://x.test/?k=${encodeURIComponent(odd)}`)).toBe(`https://x.test/?k=${KEY_HIDDEN}`);
  });

  it('replaces the parts of a key pasted with a line break, as an HTTP library might quote it', () => {
    const pasted = `${KEY.slice(0, 12)}\n${KEY.slice(12)}`;
    const s = createScrubber([pasted]);
    const out = s(`Invalid header value "${JSON.stringify(pasted)}" and ${pasted} and ${KEY.slice(12)}`);
    expect(out).not.toContain(KEY.slice(0, 12));
    expect(out).not.toContain(KEY.slice(12));
  });

  it('writes "[key hidden]" where the key was: the words every client shows', () => {
    expect(scrub(`key=${KEY};`)).toBe('key=[key hidden];');
  });

  it('replaces a longer key whole when a shorter one begins it: no tail of it is left', () => {
    // An old key and its successor, say; the shorter given first. Replaced short-first, the longer
    // would leave its last characters in the text.
    const s = createScrubber(['abcdefgh', 'abcdefgh-ijkl']);
    expect(s('x abcdefgh-ijkl y abcdefgh z')).toBe('x [key hidden] y [key hidden] z');
  });

  it('replaces a key pasted with spaces around and inside it whole, not part by part', () => {
    const s = createScrubber([' abcdefgh ijklmnop\n']);
    expect(s('x abcdefgh ijklmnop y')).toBe('x [key hidden] y');
  });

  it('scrubs secrets of exactly the shortest length, and any spelling from exactly 16 letters and digits', () => {
    expect(createScrubber(['abcdef'])('a abcdef b')).toBe('a [key hidden] b');
    const sixteen = createScrubber(['abcd-efgh-ijkl-mnop']);
    expect(sixteen('cell ABCDEFGHIJKLMNOP end')).toBe('cell [key hidden] end');
    // Fifteen would match ordinary text: only the exact forms then.
    expect(createScrubber(['abcd-efgh-ijkl-mno'])('cell ABCDEFGHIJKLMNO end')).toBe(
      'cell ABCDEFGHIJKLMNO end',
    );
  });

  it('takes a key holding a lone surrogate (it cannot be URL-encoded) and leaves other text alone', () => {
    const odd = 'abcdefgh\ud800ijkl';
    const s = createScrubber([odd]);
    expect(s(`a ${odd} b`)).toBe('a [key hidden] b');
    expect(s('undefined stays undefined')).toBe('undefined stays undefined');
  });

  it('ignores empty and very short secrets (they would mangle every message)', () => {
    const s = createScrubber(['', 'k', 'abc']);
    expect(s('kabc keeps its text')).toBe('kabc keeps its text');
  });

  it('leaves no occurrence of any key in any text around it', () => {
    const key = fc.string({ unit: 'grapheme-ascii', minLength: 8, maxLength: 40 });
    fc.assert(
      fc.property(key, fc.string(), fc.string(), (k, before, after) => {
        const s = createScrubber([k]);
        for (const text of [
          before + k + after,
          JSON.stringify(before + k + after),
          before + encodeURIComponent(k),
        ])
          expect(s(text)).not.toContain(k);
      }),
    );
  });

  it('replaces every spelling of a key: dashes removed or moved, another case, spaces, escapes', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.string(), (uuid, around) => {
        const s = createScrubber([uuid]);
        const bare = uuid.replaceAll('-', '');
        const spellings = [
          bare,
          bare.toUpperCase(),
          uuid.toUpperCase(),
          uuid.replaceAll('-', ' '),
          bare.replace(/(.{4})/g, '$1 ').trim(),
          uuid.replaceAll('-', '%2D'),
          JSON.stringify(uuid.replaceAll('-', '\n')).slice(1, -1),
          uuid.replaceAll('-', '\\u002d'),
        ];
        for (const spelling of spellings) {
          const out = s(`cell: ${spelling}${around.replace(/[0-9a-f]/gi, '')}`);
          expect(out, spelling).toContain(KEY_HIDDEN);
          expect(out.replace(/[^0-9a-f]/gi, ''), spelling).not.toContain(bare.slice(0, 12));
        }
      }),
    );
  });

  it('keeps a scrubbed JSON text JSON, and leaves a part of a key alone', () => {
    const uuid = '5d2e8b71-9c4f-4a06-b1e3-7f0a9c2d4e68';
    const s = createScrubber([uuid]);
    const json = JSON.stringify({ a: uuid.replaceAll('-', ''), b: [uuid.slice(0, 18), uuid.slice(18)] });
    expect(JSON.parse(s(json))).toEqual({ a: KEY_HIDDEN, b: [uuid.slice(0, 18), uuid.slice(18)] });
  });

  it('runs in linear time on a large text', () => {
    const text = `${'a'.repeat(500_000)}${KEY}`;
    const started = performance.now();
    expect(scrub(text).endsWith(KEY_HIDDEN)).toBe(true);
    // Generous for a busy machine (it takes milliseconds); a backtracking pattern never ends here.
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
