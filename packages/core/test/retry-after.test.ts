// Retry-After, field by field: each of the three HTTP date forms of RFC 9110 §5.6.7 and
// delay-seconds, at the edges of every field. A date read wrongly makes a run wait too long, or
// not at all and be refused again.
import { describe, expect, it } from 'vitest';
import { parseHttpDate, parseRetryAfter } from '../src/index.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

describe('parseHttpDate', () => {
  it.each(MONTHS.map((m, i) => [m, i] as const))('reads the month %s', (month, index) => {
    expect(parseHttpDate(`Sun, 06 ${month} 1994 08:49:37 GMT`)).toBe(Date.UTC(1994, index, 6, 8, 49, 37));
    expect(parseHttpDate(`Sunday, 06-${month}-94 08:49:37 GMT`)).toBe(Date.UTC(1994, index, 6, 8, 49, 37));
    expect(parseHttpDate(`Sun ${month}  6 08:49:37 1994`)).toBe(Date.UTC(1994, index, 6, 8, 49, 37));
  });

  it('takes each field up to its bound and refuses one past it', () => {
    const at = (day: string, time: string) => parseHttpDate(`Sun, ${day} Nov 1994 ${time} GMT`);
    expect(at('01', '00:00:00')).toBe(Date.UTC(1994, 10, 1, 0, 0, 0));
    expect(at('00', '00:00:00')).toBeUndefined();
    expect(at('31', '08:49:37')).toBe(Date.UTC(1994, 10, 31, 8, 49, 37));
    expect(at('32', '08:49:37')).toBeUndefined();
    expect(at('06', '23:59:60')).toBe(Date.UTC(1994, 10, 6, 23, 59, 60));
    expect(at('06', '24:00:00')).toBeUndefined();
    expect(at('06', '08:60:00')).toBeUndefined();
    expect(at('06', '08:49:61')).toBeUndefined();
  });

  it('reads a two-digit year as this century below 70, the last one from 70', () => {
    expect(parseHttpDate('Sunday, 06-Nov-69 08:49:37 GMT')).toBe(Date.UTC(2069, 10, 6, 8, 49, 37));
    expect(parseHttpDate('Sunday, 06-Nov-70 08:49:37 GMT')).toBe(Date.UTC(1970, 10, 6, 8, 49, 37));
  });

  it("reads asctime's day of one or two digits", () => {
    expect(parseHttpDate('Sun Nov 16 08:49:37 1994')).toBe(Date.UTC(1994, 10, 16, 8, 49, 37));
  });

  it('refuses a date with anything before or after it, and text that is no date', () => {
    for (const date of [
      'Sun, 06 Nov 1994 08:49:37 GMT',
      'Sunday, 06-Nov-94 08:49:37 GMT',
      'Sun Nov  6 08:49:37 1994',
    ]) {
      expect(parseHttpDate(date)).toBeDefined();
      expect(parseHttpDate(`x ${date}`)).toBeUndefined();
      expect(parseHttpDate(`${date} x`)).toBeUndefined();
    }
    expect(parseHttpDate('not a date')).toBeUndefined();
    expect(parseHttpDate('')).toBeUndefined();
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds with up to three decimals, and nothing after them', () => {
    expect(parseRetryAfter('1.25')).toBe(1250);
    expect(parseRetryAfter('1.125')).toBe(1125);
    expect(parseRetryAfter('1.2345')).toBeUndefined();
    expect(parseRetryAfter('12abc', 0)).toBeUndefined();
    expect(parseRetryAfter('12 ', 0)).toBe(12_000);
  });

  it('reads a header of up to 64 characters, not one longer', () => {
    expect(parseRetryAfter(`${' '.repeat(61)}120`)).toBe(120_000);
    expect(parseRetryAfter(`${' '.repeat(62)}120`)).toBeUndefined();
  });
});
