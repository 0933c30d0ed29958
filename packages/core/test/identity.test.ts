// Who a person is for forgetting (identity.ts), where a kept answer holds them (identity-match.ts),
// and the suppression list's check (suppression.ts): every spelling core normalises finds the person.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  forgottenMessage,
  type Identity,
  IdentityMatcher,
  identitiesOf,
  identityText,
  nameAddressIdentity,
  PERSON_TEXT_HOW,
  readPersonText,
  requestIdentities,
  SuppressionCheck,
  suppressionHash,
  utcDay,
} from '../src/index.js';
import { op } from './api.js';

const hmac = (salt: string, text: string) => createHmac('sha256', salt).update(text).digest('hex');
const phone: Identity = { kind: 'phone', value: '5550102030' };
const email: Identity = { kind: 'email', value: 'jane.doe@example.com' };

function ids(raw: Record<string, unknown>): readonly Identity[] {
  const read = identitiesOf(raw);
  if (!read.ok) throw new Error(read.message);
  return read.identities;
}

describe('identitiesOf: a forget request in any spelling core normalises', () => {
  it.each([['(555) 010-2030'], ['+1 555 010 2030'], ['555.010.2030'], [5550102030], ['15550102030']])(
    'phone %j is 5550102030',
    (raw) => {
      expect(ids({ Phone: raw })).toEqual([phone]);
      expect(ids({ phone: raw })).toEqual([phone]);
    },
  );

  it('an e-mail in any case is one identity, in lower case', () => {
    expect(ids({ Email: 'Jane.Doe@EXAMPLE.com' })).toEqual([email]);
    expect(ids({ email: 'JANE.DOE@example.com' })).toEqual([email]);
  });

  it('a name and street line, as FullName or FName + LName, with punctuation and case ignored', () => {
    const one = ids({ FName: 'Jane', LName: 'Doe', Address1: '12 Main St.' });
    expect(one).toEqual([{ kind: 'name-address', value: 'jane doe|12 main st' }]);
    expect(ids({ FullName: ' JANE   doe ', Address1: '12, Main St', Zip: '02134' })).toEqual(one);
    expect(ids({ last_name: 'Doe', first_name: 'Jane', address: '12 MAIN ST' })).toEqual(one);
  });

  it('several identities of one person', () => {
    expect(ids({ Phone: '5550102030', Email: 'jane.doe@example.com' })).toEqual([phone, email]);
  });

  it.each([
    [{}, 'give the person'],
    [{ Phone: '555010203' }, 'Phone must be 10 digits'],
    [{ Email: 'jane.doe' }, 'Email is not an e-mail address'],
    [{ FName: 'Jane', LName: 'Doe' }, 'needs the name'],
    [{ Address1: '12 Main St' }, 'needs the name'],
    [{ FName: 'Jane', Address1: '12 Main St' }, 'needs both FName and LName'],
    [{ FullName: 'Jane Doe', LName: 'Doe', Address1: '12 Main St' }, 'not both'],
    [{ Vehicle: 'Ford' }, 'Vehicle is not a field of a person'],
  ])('%j is refused: %s', (raw, words) => {
    const read = identitiesOf(raw);
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.message).toContain(words);
  });
});

describe('requestIdentities: what a valid request carries', () => {
  it('phone lookup, TCPA (phone), ID verify (all), demographic append with City/State', () => {
    expect(requestIdentities(op('phone-lookup'), { Phone: '5550102030' })).toEqual([phone]);
    expect(requestIdentities(op('tcpa-verify'), { phone: '5550102030', last_name: 'Doe' })).toEqual([phone]);
    expect(
      requestIdentities(op('id-verify'), {
        FName: 'Jane',
        LName: 'Doe',
        Address1: '12 Main St',
        Zip: '02134',
        Phone: '5550102030',
        Email: 'Jane.Doe@example.com',
      }),
    ).toEqual([phone, email, { kind: 'name-address', value: 'jane doe|12 main st' }]);
    expect(
      requestIdentities(op('auto-append'), { FullName: 'Jane Doe', Address1: '12 Main St', Zip: '02134' }),
    ).toEqual([{ kind: 'name-address', value: 'jane doe|12 main st' }]);
    expect(requestIdentities(op('id-verify'), { FName: 'Jane' })).toEqual([]);
  });
});

describe('IdentityMatcher: a kept answer holds the person in any spelling', () => {
  const matcher = new IdentityMatcher([phone, email, { kind: 'name-address', value: 'jane doe|12 main st' }]);

  it.each([
    ['{"key":"phone-lookup:[[\\"Phone\\",\\"5550102030\\"]]"}'],
    ['call (555) 010-2030 today'],
    ['+1 555 010 2030'],
    ['1-555-010-2030'],
    ['555.010.2030 and 555.010.2031'],
    ['"raw":"{\\"Phone\\":\\"5550102030\\"}"'],
    ['\\u0035550102030'],
    ['{"Phone":5550102030}'],
  ])('finds the phone in %s', (text) => {
    expect(matcher.find(text)).toEqual(phone);
  });

  it.each([['25550102030'], ['5550102031'], ['PID 1234555010203099'], ['555010203']])(
    'does not take %s for the phone',
    (text) => {
      expect(new IdentityMatcher([phone]).find(text)).toBeUndefined();
    },
  );

  it.each([
    ['"Email":"jane.doe@example.com"'],
    ['"email":"JANE.DOE@EXAMPLE.COM"'],
    ['mailto:Jane.Doe@Example.com'],
    ['https://x.example/?email=jane.doe@example.com&a=1'],
    ['"raw":"{\\"email\\":\\"jane.doe@example.com\\"}"'],
    ['jane.doe\\u0040example.com'],
  ])('finds the e-mail in %s', (text) => {
    expect(matcher.find(text)).toEqual(email);
  });

  it.each([
    ['xjane.doe@example.com'],
    ['jane.doe@example.co'],
    ['doe@example.com'],
    ['jane.doe@example.com.au'],
  ])('does not take %s for the e-mail', (text) => {
    expect(new IdentityMatcher([email]).find(text)).toBeUndefined();
  });

  it('finds a name and address spelled in parts, not a name alone or another street', () => {
    const nameOnly = new IdentityMatcher([{ kind: 'name-address', value: 'jane doe|12 main st' }]);
    const record = '{"FName":"JANE","LName":"Doe","House":"12","Street":"Main","StrType":"St","Zip":"02134"}';
    expect(nameOnly.find(record)).toBeDefined();
    expect(
      nameOnly.find('{"FName":"Jane","LName":"Doe","House":"14","Street":"Main","StrType":"St"}'),
    ).toBeUndefined();
    expect(
      nameOnly.find('{"FName":"Jane","LName":"Doer","House":"12","Street":"Main","StrType":"St"}'),
    ).toBeUndefined();
  });

  it('finds names of any letters, in any case, beside any punctuation', () => {
    const accented = new IdentityMatcher(ids({ FullName: 'José Müller', Address1: '3 Straße Süd' }));
    expect(accented.find('{"FName":"JOSÉ","LName":"MÜLLER","Street":"3 STRASSE SÜD"}')).toBeUndefined();
    expect(
      accented.find('{"FName":"JOSÉ","LName":"MÜLLER","House":"3","Street":"STRAßE","PostDir":"SÜD"}'),
    ).toBeDefined();
    expect(accented.find('{"name":"Jos\\u00e9 M\\u00fcller, 3 Stra\\u00dfe S\\u00fcd"}')).toBeDefined();
    const plain = new IdentityMatcher(ids({ FullName: 'Jane Doe', Address1: '12 Main St' }));
    expect(plain.find('jane_doe 12_MAIN_st')).toBeDefined();
    expect(plain.find('jane doe 12 mainst')).toBeUndefined();
  });

  it('findAll names each identity the text holds', () => {
    expect(matcher.findAll('5550102030 and jane.doe@example.com')).toEqual([phone, email]);
  });

  it('property: every formatting of every phone is found, and no other phone is', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[2-9][0-9]{9}$/),
        fc.constantFrom('', '-', '.', ' ', ') '),
        fc.boolean(),
        (digits, sep, country) => {
          const formatted = `${country ? '+1 ' : ''}${sep === ') ' ? '(' : ''}${digits.slice(0, 3)}${sep}${digits.slice(3, 6)}${sep === ') ' ? '-' : sep}${digits.slice(6)}`;
          const m = new IdentityMatcher([{ kind: 'phone', value: digits }]);
          expect(m.find(`{"x":"${formatted}"}`)).toBeDefined();
          const other = `${digits.slice(0, 9)}${(Number(digits[9]) + 1) % 10}`;
          expect(m.find(`{"x":"${other}"}`)).toBeUndefined();
        },
      ),
    );
  });
});

describe('SuppressionCheck', () => {
  const salt = 'a1b2c3';
  const entries = [{ hash: suppressionHash(hmac, salt, phone), kind: 'phone' as const, on: '2026-11-25' }];
  const check = new SuppressionCheck(hmac, salt, entries);

  it('refuses a request carrying a forgotten identity, in any operation, and says when', () => {
    expect(check.refusal(op('phone-lookup'), { Phone: '5550102030' })).toBe(forgottenMessage('2026-11-25'));
    expect(check.refusal(op('tcpa-verify'), { phone: '5550102030', last_name: 'Doe' })).toContain(
      "forgotten at the person's request on 2026-11-25",
    );
    expect(check.refusal(op('phone-lookup'), { Phone: '5550102031' })).toBeUndefined();
    expect(check.refusal(op('email-verify'), { Email: 'jane.doe@example.com' })).toBeUndefined();
  });

  it('the hash holds no clear text and depends on the salt', () => {
    const hash = suppressionHash(hmac, salt, phone);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain('5550102030');
    expect(suppressionHash(hmac, 'other', phone)).not.toBe(hash);
    expect(identityText(phone)).toBe('phone:5550102030');
  });

  it('utcDay is the UTC date', () => {
    expect(utcDay(Date.UTC(2026, 10, 30, 23, 59))).toBe('2026-11-30');
  });
});

describe('readPersonText: a person as typed into a box', () => {
  it('reads each part separated by ";" as a phone, an e-mail, or "name, street line"', () => {
    const read = readPersonText(' (555) 010-2030 ; Jane.Doe@Example.com;Jane Doe, 12 Main St ;');
    expect(read).toEqual({
      ok: true,
      identities: [
        { kind: 'phone', value: '5550102030' },
        { kind: 'email', value: 'jane.doe@example.com' },
        nameAddressIdentity('Jane Doe', '12 Main St'),
      ],
    });
  });

  it('refuses nothing typed, a part that is none of the three, and an invalid one, saying why', () => {
    expect(readPersonText(' ; ')).toEqual({ ok: false, message: PERSON_TEXT_HOW });
    expect(readPersonText('5550102030; Jane Doe')).toEqual({
      ok: false,
      message: '"Jane Doe" is not a phone, an e-mail, or a name and street line ("Jane Doe, 12 Main St")',
    });
    expect(readPersonText('555-01')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Phone must be 10 digits/),
    });
  });
});
