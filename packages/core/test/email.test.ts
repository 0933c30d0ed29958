// E-mail addresses that can only waste a paid transaction are refused locally, naming the rule
// they break (issue 27, item 3); deliverable ones, plain or internationalised, still pass; and the
// check is linear, so no cell can make it hang.
import { describe, expect, it } from 'vitest';
import {
  checkEmail,
  EMAIL_RULES,
  type EmailRule,
  OPERATIONS,
  validate,
  validateField,
} from '../src/index.js';
import { op } from './api.js';

const emailVerify = op('email-verify');
const got = (value: string) => JSON.stringify(value);

/** [cell, rule broken, the message validate() gives] */
const REFUSED: readonly (readonly [string, EmailRule, string])[] = [
  // Seen on main: sent and paid for.
  ['mailto:j@x.com', 'bare', `${EMAIL_RULES.bare}; got "mailto:j@x.com"`],
  ['<j@x.com>', 'bare', `${EMAIL_RULES.bare}; got "<j@x.com>"`],
  ['j@x.com;', 'one-address', `${EMAIL_RULES['one-address']}; got "j@x.com;"`],
  ['j@x..com', 'domain-dots', `${EMAIL_RULES['domain-dots']}; got "j@x..com"`],
  ['n/a@n/a.n/a', 'domain-chars', `${EMAIL_RULES['domain-chars']}, not "/"; got "n/a@n/a.n/a"`],
  // Their kin.
  ['MAILTO:j@x.com', 'bare', `${EMAIL_RULES.bare}; got "MAILTO:j@x.com"`],
  ['"Name" <j@x.com>', 'bare', `${EMAIL_RULES.bare}; got ${got('"Name" <j@x.com>')}`],
  ['Jane Doe <j@x.com>', 'bare', `${EMAIL_RULES.bare}; got "Jane Doe <j@x.com>"`],
  ['j@x.com, k@y.com', 'one-address', `${EMAIL_RULES['one-address']}; got "j@x.com, k@y.com"`],
  ['j@x.com;k@y.com', 'one-address', `${EMAIL_RULES['one-address']}; got "j@x.com;k@y.com"`],
  ['j@x.com k@y.com', 'one-address', `${EMAIL_RULES['one-address']}; got "j@x.com k@y.com"`],
  ['j@x.com,', 'one-address', `${EMAIL_RULES['one-address']}; got "j@x.com,"`],
  ['j@@x.com', 'at-sign', `${EMAIL_RULES['at-sign']}; got "j@@x.com"`],
  ['j@x@y.com', 'at-sign', `${EMAIL_RULES['at-sign']}; got "j@x@y.com"`],
  ['jane.example.com', 'at-sign', `${EMAIL_RULES['at-sign']}; got "jane.example.com"`],
  ['j\uff20x.com', 'at-sign', `${EMAIL_RULES['at-sign']}; got "j\uff20x.com"`],
  ['j k@x.com', 'spaces', `${EMAIL_RULES.spaces}; got "j k@x.com"`],
  ['j@x .com', 'spaces', `${EMAIL_RULES.spaces}; got "j@x .com"`],
  ['@x.com', 'local-empty', `${EMAIL_RULES['local-empty']}; got "@x.com"`],
  ['.j@x.com', 'local-dots', `${EMAIL_RULES['local-dots']}; got ".j@x.com"`],
  ['j.@x.com', 'local-dots', `${EMAIL_RULES['local-dots']}; got "j.@x.com"`],
  ['j..k@x.com', 'local-dots', `${EMAIL_RULES['local-dots']}; got "j..k@x.com"`],
  ['(j)@x.com', 'local-chars', `${EMAIL_RULES['local-chars']}, not "("; got "(j)@x.com"`],
  ['j)@x.com', 'local-chars', `${EMAIL_RULES['local-chars']}, not ")"; got "j)@x.com"`],
  ['j:k@x.com', 'local-chars', `${EMAIL_RULES['local-chars']}, not ":"; got "j:k@x.com"`],
  ['j\\k@x.com', 'local-chars', `${EMAIL_RULES['local-chars']}, not "\\\\"; got ${got('j\\k@x.com')}`],
  ['j[k]@x.com', 'local-chars', `${EMAIL_RULES['local-chars']}, not "["; got "j[k]@x.com"`],
  ['"j k"@x.com', 'spaces', `${EMAIL_RULES.spaces}; got ${got('"j k"@x.com')}`],
  ['"jk"@x.com', 'local-chars', `${EMAIL_RULES['local-chars']}, not "\\""; got ${got('"jk"@x.com')}`],
  ['j,k@x.com', 'local-chars', `${EMAIL_RULES['local-chars']}, not ","; got "j,k@x.com"`],
  ['j;k@x.com', 'local-chars', `${EMAIL_RULES['local-chars']}, not ";"; got "j;k@x.com"`],
  ['j\u00a7@x.com', 'local-chars', `${EMAIL_RULES['local-chars']}, not "\u00a7"; got "j\u00a7@x.com"`],
  [`${'a'.repeat(65)}@x.com`, 'local-length', `${EMAIL_RULES['local-length']}; got 65`],
  [`${'\u00fc'.repeat(33)}@x.com`, 'local-length', `${EMAIL_RULES['local-length']}; got 66`],
  ['j@', 'domain-empty', `${EMAIL_RULES['domain-empty']}; got "j@"`],
  ['j@[1.2.3.4]', 'domain-literal', `${EMAIL_RULES['domain-literal']}; got "j@[1.2.3.4]"`],
  // The message shows the value as normalised: the domain lower-cased.
  ['j@[IPv6:::1]', 'domain-literal', `${EMAIL_RULES['domain-literal']}; got "j@[IPv6:::1]"`],
  ['j@x/y.com', 'domain-chars', `${EMAIL_RULES['domain-chars']}, not "/"; got "j@x/y.com"`],
  ['j@x_y.com', 'domain-chars', `${EMAIL_RULES['domain-chars']}, not "_"; got "j@x_y.com"`],
  ['j@x.com>', 'bare', `${EMAIL_RULES.bare}; got "j@x.com>"`],
  ['j@x.com)', 'domain-chars', `${EMAIL_RULES['domain-chars']}, not ")"; got "j@x.com)"`],
  ['j@x.com?subject=hi', 'domain-chars', `${EMAIL_RULES['domain-chars']}, not "?"; got "j@x.com?subject=hi"`],
  ['j@x,com', 'domain-chars', `${EMAIL_RULES['domain-chars']}, not ","; got "j@x,com"`],
  ['j@x.com\u3002', 'domain-chars', `${EMAIL_RULES['domain-chars']}, not "\u3002"; got "j@x.com\u3002"`],
  ['j@x.com.', 'domain-dots', `${EMAIL_RULES['domain-dots']}; got "j@x.com."`],
  ['j@.x.com', 'domain-dots', `${EMAIL_RULES['domain-dots']}; got "j@.x.com"`],
  ['j@-x.com', 'domain-hyphen', `${EMAIL_RULES['domain-hyphen']}; got "j@-x.com"`],
  ['j@x-.com', 'domain-hyphen', `${EMAIL_RULES['domain-hyphen']}; got "j@x-.com"`],
  ['j@x.-com', 'domain-hyphen', `${EMAIL_RULES['domain-hyphen']}; got "j@x.-com"`],
  [`j@${'b'.repeat(64)}.com`, 'label-length', `${EMAIL_RULES['label-length']}; got 64`],
  ['j@localhost', 'top-level', `${EMAIL_RULES['top-level']}; got "j@localhost"`],
  ['jane@example', 'top-level', `${EMAIL_RULES['top-level']}; got "jane@example"`],
  ['j@x.123', 'top-level', `${EMAIL_RULES['top-level']}; got "j@x.123"`],
  ['j@1.2.3.4', 'top-level', `${EMAIL_RULES['top-level']}; got "j@1.2.3.4"`],
  ['j@x.c', 'top-level', `${EMAIL_RULES['top-level']}; got "j@x.c"`],
  ['j@x.c0m', 'top-level', `${EMAIL_RULES['top-level']}; got "j@x.c0m"`],
  ['j@x.co-uk', 'top-level', `${EMAIL_RULES['top-level']}; got "j@x.co-uk"`],
];

describe('e-mail addresses that can only waste money are refused, naming the rule', () => {
  it.each(REFUSED)('%j breaks %s', (cell, rule, message) => {
    expect(checkEmail(cell)?.rule).toBe(rule);
    const result = validate(emailVerify, { Email: cell });
    expect(result).toEqual({
      ok: false,
      issues: [{ field: 'Email', message: `Email ${message}` }],
      message: `Email ${message}`,
    });
    expect(validateField(emailVerify, 'Email', cell)).toEqual({ ok: false, message: `Email ${message}` });
  });

  it('refuses them for every operation that takes Email, before any rule of the operation', () => {
    const takingEmail = OPERATIONS.filter((o) => o.inputs.some((f) => f.name === 'Email'));
    expect(takingEmail.map((o) => o.id)).toEqual([
      'auto-append',
      'demographic-append',
      'email-lookup',
      'email-verify',
      'id-verify',
    ]);
    for (const o of takingEmail) {
      for (const [cell] of REFUSED) {
        const result = validate(o, { ...o.example, Email: cell });
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.issues[0]?.field).toBe('Email');
      }
    }
  });

  it('covers every rule with at least one case', () => {
    const covered = new Set(REFUSED.map(([, rule]) => rule));
    // 254 cannot be reached through validate(): the API's own bound of 100 comes first.
    covered.add('length');
    expect([...covered].sort()).toEqual(Object.keys(EMAIL_RULES).sort());
  });

  it('counts 254 characters for the whole address, in bytes of UTF-8, when used on its own', () => {
    const at254 = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(at254.length).toBe(254);
    expect(checkEmail(at254)).toBeUndefined();
    expect(checkEmail(`${at254.slice(0, -3)}come`)).toEqual({ rule: 'length', length: 255 });
    // Through validate(), the API's bound of 100 characters speaks first.
    expect(validate(emailVerify, { Email: at254 })).toMatchObject({
      ok: false,
      message: 'Email must be at most 100 characters; got 254',
    });
  });

  it('states each rule as words that follow the field name', () => {
    for (const words of Object.values(EMAIL_RULES)) expect(words).toMatch(/^must /);
  });
});

describe('deliverable addresses are still accepted', () => {
  it.each([
    ['jane@example.com', 'jane@example.com'],
    ['jane.doe@example.com', 'jane.doe@example.com'],
    ['j+newsletter@example.com', 'j+newsletter@example.com'],
    ['jane@mail.eu.example.co.uk', 'jane@mail.eu.example.co.uk'],
    ['jane@my-company.com', 'jane@my-company.com'],
    ['j@a-b-c.x-y.org', 'j@a-b-c.x-y.org'],
    ["o'brien@x.ie", "o'brien@x.ie"],
    ['jane_doe-99@example.org', 'jane_doe-99@example.org'],
    ["!#$%&'*+-/=?^_`{|}~@example.com", "!#$%&'*+-/=?^_`{|}~@example.com"],
    ['n/a@example.com', 'n/a@example.com'],
    ['jane@example.photography', 'jane@example.photography'],
    ['jane@example.museum', 'jane@example.museum'],
    ['jane@123.example.com', 'jane@123.example.com'],
    ['jane@4chan.org', 'jane@4chan.org'],
    ['Jane.Doe@Example.COM', 'Jane.Doe@example.com'],
    ['JANE@EXAMPLE.COM', 'JANE@example.com'],
    ['  jane@example.com  ', 'jane@example.com'],
    ['jane@example.xn--p1ai', 'jane@example.xn--p1ai'],
    ['jane@XN--80AKHBYKNJ4F.XN--P1AI', 'jane@xn--80akhbyknj4f.xn--p1ai'],
    // Internationalised (SMTPUTF8 and IDN): letters and digits of any script.
    ['j.m\u00fcller@b\u00fccher.de', 'j.m\u00fcller@b\u00fccher.de'],
    ['\u7528\u6237@\u4f8b\u5b50.\u5e7f\u544a', '\u7528\u6237@\u4f8b\u5b50.\u5e7f\u544a'],
    [
      '\u0438\u0432\u0430\u043d@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444',
      '\u0438\u0432\u0430\u043d@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444',
    ],
    ['JOS\u00c9@CAF\u00c9.FR', 'JOS\u00c9@caf\u00e9.fr'],
    [`${'a'.repeat(64)}@example.com`, `${'a'.repeat(64)}@example.com`],
    [`j@${'b'.repeat(63)}.com`, `j@${'b'.repeat(63)}.com`],
  ])('%j is accepted as %j', (cell, sent) => {
    expect(checkEmail(sent)).toBeUndefined();
    expect(validate(emailVerify, { Email: cell })).toEqual({ ok: true, input: { Email: sent } });
    expect(validateField(emailVerify, 'Email', cell)).toEqual({ ok: true, value: sent });
  });

  it("accepts every operation's example", () => {
    for (const o of OPERATIONS) {
      const email = o.example.Email;
      if (email !== undefined) expect(checkEmail(email)).toBeUndefined();
    }
  });
});

describe('the e-mail check runs in linear time', () => {
  const hostile: readonly (readonly [string, string])[] = [
    ['100 KB of a then @', `${'a'.repeat(100_000)}@`],
    ['@ then 100 KB of a', `@${'a'.repeat(100_000)}`],
    ['a@ then 100 KB of dots', `a@${'.'.repeat(100_000)}`],
    ['100 KB of dots then @x.com', `${'.'.repeat(100_000)}@x.com`],
    ['a@ then 50,000 one-letter labels', `a@${'b.'.repeat(50_000)}c`],
    ['a@ then 100 KB of one label and a dot', `a@${'b'.repeat(100_000)}.`],
    ['a@ then labels of hyphens', `a@${'-.'.repeat(50_000)}com`],
    ['100 KB of @', '@'.repeat(100_000)],
    ['100 KB of a.', `${'a.'.repeat(50_000)}@x.com`],
    ['100 KB of a@ and commas', 'a@b,'.repeat(25_000)],
    ['100 KB of non-ASCII letters', `${'\u00fc'.repeat(100_000)}@x.com`],
    ['100 KB of digits after the last dot', `a@b.${'1'.repeat(100_000)}`],
    ['100 KB of xn-- in the top-level domain', `a@b.xn--${'-'.repeat(100_000)}!`],
  ];

  it.each(hostile)('checkEmail reads %s in well under a second', (_, text) => {
    const started = performance.now();
    const problem = checkEmail(text);
    const elapsed = performance.now() - started;
    expect(problem).toBeDefined();
    expect(elapsed).toBeLessThan(1000);
  });

  it('validate() refuses them by length before any rule runs, in well under a second each', () => {
    for (const [, text] of hostile) {
      const started = performance.now();
      expect(validate(emailVerify, { Email: text })).toMatchObject({ ok: false });
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });

  it('reads every rule to the end of a value at the 254 bound quickly', () => {
    // checkEmail counts the length first (one pass), so only values within 254 bytes reach the
    // rules; these make each rule read its whole part: one pass each, nothing backtracked.
    const shapes = [
      `${'a'.repeat(253)}@`,
      `@${'a'.repeat(253)}`,
      `a@${'.'.repeat(252)}`,
      `a@${'b.'.repeat(125)}c`,
      `${'.'.repeat(248)}@x.com`,
      `${'a.'.repeat(32)}a@${'-b-.'.repeat(46)}com`,
      `a@b.${'1'.repeat(250)}`,
      `a@b.xn--${'-'.repeat(245)}!`,
      `${'\u00fc'.repeat(124)}@x.com`,
    ];
    for (const text of shapes) expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(254);
    const started = performance.now();
    for (let i = 0; i < 1000; i++) for (const text of shapes) expect(checkEmail(text)).toBeDefined();
    // 9000 reads of up to 254 bytes: milliseconds when each rule reads once, far more if one backtracks.
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
