// The monthly cap as a person types it (store/spend-rules.ts): one rule for every client's flag and
// ENRICH_MAX_TRANSACTIONS_PER_MONTH, a message that names where it came from and the rule.
import { describe, expect, it } from 'vitest';
import { MAX_PER_MONTH_ENV, parseMonthlyCap } from '../src/index.js';

describe('parseMonthlyCap', () => {
  it('reads a whole number from 0; unset or blank is no cap', () => {
    expect(MAX_PER_MONTH_ENV).toBe('ENRICH_MAX_TRANSACTIONS_PER_MONTH');
    expect(parseMonthlyCap(undefined)).toBeUndefined();
    expect(parseMonthlyCap('  ')).toBeUndefined();
    expect(parseMonthlyCap('0')).toBe(0);
    expect(parseMonthlyCap(' 50000 ')).toBe(50_000);
  });

  it('refuses anything else, naming the variable (or the flag given) and the rule', () => {
    for (const text of ['-1', '1.5', '1e3', 'ten', '0x10', '99999999999999999999']) {
      expect(() => parseMonthlyCap(text)).toThrow(
        new RangeError(
          `ENRICH_MAX_TRANSACTIONS_PER_MONTH must be a whole number of transactions, 0 or more; got ${JSON.stringify(text)}`,
        ),
      );
    }
    expect(() => parseMonthlyCap('x', '--max-transactions-per-month')).toThrow(
      /^--max-transactions-per-month must be a whole number of transactions, 0 or more; got "x"$/,
    );
  });
});
