// Issue 39, item 1: the allowance per spreadsheet. 20,000 numbers pasted under =PHONELOOKUP(A2:A20001)
// spend the allowance (the default, 500 a day) and not one more, however often Sheets recalculates;
// the rows past it say so and how to raise it, kept answers still show; a collaborator cannot raise
// it; the owner raising it lets the rest through, each phone bought once.
import { expect, test } from 'vitest';
import { newRuntime, phone } from './helpers.js';
import type { Runtime } from './runtime/index.js';

const HELD_DAY = 'Allowance reached (500 a day in this spreadsheet): not bought.';

function paste20k(rt: Runtime): string[] {
  rt.sheet().maxRows = 20_100;
  const phones = Array.from({ length: 20_000 }, (_, i) => phone(i));
  rt.type('Sheet1', 'A1', [['Phone']]);
  rt.type(
    'Sheet1',
    'A2:A20001',
    phones.map((p) => [p]),
  );
  rt.type('Sheet1', 'B2', [['=PHONELOOKUP(A2:A20001, "FName")']]);
  return phones;
}

test('20,000 pasted inputs spend the default allowance (500) and not one more; raising it buys the next ones once', {
  timeout: 300_000,
}, () => {
  const rt = newRuntime({ latencyMs: 50, allowance: 'default' });
  const phones = paste20k(rt);

  expect(rt.recalculate().errors).toEqual([]);
  expect(rt.sandbox.transactions()).toBe(500);
  const first = rt.values('Sheet1', 'B2:B20001').map((r) => String(r[0]));
  const bought = first.filter((v) => !v.startsWith('Allowance reached'));
  expect(bought).toHaveLength(500);
  // The first 500 rows in order; every other row says the allowance stopped it, and how to raise it.
  expect(first.slice(500).every((v) => v.startsWith(HELD_DAY))).toBe(true);
  expect(first[500]).toContain("The key's owner can raise it: Extensions > Enrich > Settings…");

  // Sheets recalculates as it likes (reopening, an hourly pass): nothing more is sent, kept answers show.
  rt.passTime(3_600_000);
  expect(rt.recalculate().errors).toEqual([]);
  expect(rt.sandbox.transactions()).toBe(500);
  expect(rt.values('Sheet1', 'B2:B501')).toEqual(first.slice(0, 500).map((v) => [v]));

  // A collaborator's allowance governs only their own key: the owner's formulas stay at 500.
  rt.run(rt.collaborator, 'saveAllowance', { day: 100_000, month: 100_000 });
  expect(rt.recalculate().errors).toEqual([]);
  expect(rt.sandbox.transactions()).toBe(500);
  expect(rt.run(rt.owner, 'getAllowance')).toMatchObject({
    limits: { day: 500, month: 10_000 },
    spentToday: 500,
    spentThisMonth: 500,
    left: 0,
  });

  // The owner raises it: the formula stopped at it is entered again, and recalculating buys the
  // next 1,500 rows: not one of the 500 bought before, each phone once.
  const saved = rt.run(rt.owner, 'saveAllowance', { day: 2_000 }) as { reentered: number };
  expect(saved.reentered).toBe(1);
  expect(rt.cell('Sheet1', 'B2')?.formula).toBe('=PHONELOOKUP(A2:A20001, "FName")');
  expect(rt.recalculate().errors).toEqual([]);
  expect(rt.sandbox.transactions()).toBe(2_000);
  const sent = rt.http.map((h) => JSON.parse(h.body).Phone as string);
  expect(sent).toEqual(phones.slice(0, 2_000));
  const after = rt.values('Sheet1', 'B2:B20001').map((r) => String(r[0]));
  expect(after.slice(0, 500)).toEqual(first.slice(0, 500));
  expect(after.slice(0, 2_000).some((v) => v.startsWith('Allowance') || v.startsWith('Not finished'))).toBe(
    false,
  );
  expect(after.slice(2_000).every((v) => v.startsWith('Allowance reached (2,000 a day'))).toBe(true);
  expect(rt.run(rt.owner, 'getAllowance')).toMatchObject({
    spentToday: 2_000,
    spentThisMonth: 2_000,
    left: 0,
  });
  console.log(
    `20,000 pasted phones, default allowance (500 a day): 500 transactions over ${rt.executions.filter((e) => e.fn === 'PHONELOOKUP').length - 1} ` +
      `recalculations; raised to 2,000: ${saved.reentered} formula entered again, ${rt.sandbox.transactions()} in all, each phone once`,
  );
});

test('the allowance is per UTC day and month: a new day lets 500 more through, the month caps the total', () => {
  const rt = newRuntime({ allowance: 'default' });
  rt.run(rt.owner, 'saveAllowance', { day: 300, month: 500 });
  const phones = Array.from({ length: 1_000 }, (_, i) => [phone(i)]);
  const day1 = rt.customFunction(rt.owner, 'PHONELOOKUP', phones, 'FName') as string[][];
  expect(rt.sandbox.transactions()).toBe(300);
  expect(day1[300]?.[0]).toBe(
    "Allowance reached (300 a day in this spreadsheet): not bought. The key's owner can raise it: Extensions > Enrich > Settings….",
  );
  // Someone edits a cell (onEdit keeps the formulas' answers, and the count with them).
  rt.clock.advance(3_600_000);
  rt.edit(rt.collaborator);
  // The next UTC day: 300 more would fit the day, but the month has 200 left.
  rt.clock.advance(23 * 3_600_000);
  const day2 = rt.customFunction(rt.owner, 'PHONELOOKUP', phones, 'FName') as string[][];
  expect(rt.sandbox.transactions()).toBe(500);
  expect(day2.slice(0, 500).every((r) => !String(r[0]).startsWith('Allowance'))).toBe(true);
  expect(day2[500]?.[0]).toMatch(/^Allowance reached \(500 a month in this spreadsheet\)/);
  expect(rt.run(rt.owner, 'getAllowance')).toMatchObject({
    spentToday: 200,
    spentThisMonth: 500,
    left: 0,
    by: 'month',
  });
});

test('the count outlasts the cache: every copy dropped, the document property written at the last writable action holds', () => {
  const rt = newRuntime({ allowance: 'default' });
  rt.run(rt.owner, 'saveAllowance', { day: 100, month: 1_000 });
  const phones = Array.from({ length: 300 }, (_, i) => [phone(i)]);
  rt.customFunction(rt.owner, 'PHONELOOKUP', phones.slice(0, 60), 'FName');
  // A writable action (any menu item, sidebar call, or an edit's onEdit) keeps the count where it lasts.
  rt.edit(rt.owner);
  rt.documentCache.evictEarly(1, rt.random);
  rt.customFunction(rt.owner, 'PHONELOOKUP', phones, 'FName');
  expect(rt.sandbox.transactions()).toBe(100);
  // Document properties hold a count and a digest per key: no key, no input.
  const stored = [...rt.documentProperties.values.values()].join('\n');
  expect(stored).not.toContain('owner-key');
  expect(stored).not.toContain(phone(0));
});

test('without the document lock nothing is claimed, so nothing is bought: the cell says to recalculate', () => {
  const rt = newRuntime();
  rt.locksRefused = true;
  const out = rt.customFunction(rt.owner, 'PHONELOOKUP', [[phone(1)], [phone(2)]], 'FName') as string[][];
  expect(rt.sandbox.transactions()).toBe(0);
  expect(out[0]?.[0]).toBe(
    'Not bought: the spreadsheet was too busy to check its allowance; recalculate in a moment.',
  );
  rt.locksRefused = false;
  rt.customFunction(rt.owner, 'PHONELOOKUP', [[phone(1)], [phone(2)]], 'FName');
  expect(rt.sandbox.transactions()).toBe(2);
});

test('what a formula claimed and had no time to buy is given back: an allowance of exactly 80 buys all 80', () => {
  // 16 s a request: the formula claims its 80 phones, buys one round of 40 in its 30 s, and gives
  // the 40 it did not buy back to the count; the recalculation then claims and buys those 40.
  const rt = newRuntime({ latencyMs: 16_000, allowance: { day: 80, month: 80 } });
  const rows = Array.from({ length: 80 }, (_, i) => [phone(i)]);
  const first = rt.customFunction(rt.owner, 'PHONELOOKUP', rows, 'FName') as string[][];
  expect(rt.sandbox.transactions()).toBe(40);
  expect(first.filter((r) => /^Not finished within the 30-second/.test(String(r[0])))).toHaveLength(40);
  const second = rt.customFunction(rt.owner, 'PHONELOOKUP', rows, 'FName') as string[][];
  expect(rt.sandbox.transactions()).toBe(80);
  expect(second.filter((r) => /^(Not|Allowance)/.test(String(r[0])))).toEqual([]);
});
