// Must show 2: =PHONELOOKUP(A2:A1001) over 1,000 rows of which 200 repeat earlier ones, at 300 ms of
// simulated latency per request, finishes inside the 30-second custom-function limit on the virtual
// clock, spends 800 transactions (the sandbox's count), and a recalculation spends none.
import { expect, test } from 'vitest';
import { newRuntime, phone, referenceRecord } from './helpers.js';

test('1,000 rows with 200 duplicates: 800 transactions inside 30 s, then 0 on recalculation', () => {
  const rt = newRuntime({ latencyMs: 300 });
  rt.sheet().maxRows = 1200;
  // 800 distinct phones, then 200 repeats of earlier rows, spread through the column.
  const rows: number[] = Array.from({ length: 800 }, (_, i) => Number(phone(i)));
  for (let k = 0; k < 200; k++) rows.splice(5 * k + 4, 0, rows[(k * 37) % (4 * k + 4)] as number);
  expect(rows).toHaveLength(1000);
  expect(new Set(rows).size).toBe(800);
  rt.type('Sheet1', 'A1', [['Phone']]);
  rt.type(
    'Sheet1',
    'A2:A1001',
    rows.map((p) => [p]),
  );
  rt.type('Sheet1', 'B2', [['=PHONELOOKUP(A2:A1001)']]);

  expect(rt.recalculate().errors).toEqual([]);
  const first = rt.executions.filter((e) => e.fn === 'PHONELOOKUP').at(-1);
  const firstMs = (first?.ended ?? 0) - (first?.started ?? 0);
  const rounds = new Set(rt.http.map((h) => h.at)).size;
  expect(rt.sandbox.transactions()).toBe(800);
  expect(rt.http).toHaveLength(800);
  expect(firstMs).toBeLessThan(30_000);
  // Sent in parallel rounds: one request after another would take 800 × 300 ms = 240 s.
  expect(rounds).toBeLessThan(40);

  // Every row has its own answer, duplicates included.
  const out = rt.values('Sheet1', 'B2:C1001');
  rows.forEach((p, i) => {
    const record = referenceRecord('/v3/lookup/phone', { Phone: String(p) });
    expect(out[i]).toEqual([record.Name.FName, record.Name.LName]);
  });

  const before = rt.sandbox.transactions();
  expect(rt.recalculate().errors).toEqual([]);
  const second = rt.executions.filter((e) => e.fn === 'PHONELOOKUP').at(-1);
  const secondMs = (second?.ended ?? 0) - (second?.started ?? 0);
  expect(rt.sandbox.transactions() - before).toBe(0);
  expect(rt.http).toHaveLength(800);
  expect(rt.values('Sheet1', 'B2:C1001')).toEqual(out);

  console.log(
    `PHONELOOKUP(A2:A1001), 1000 rows (800 distinct), 300 ms per request: ${firstMs} ms virtual in ${rounds} fetchAll rounds, ` +
      `${before} transactions; recalculation: ${secondMs} ms, ${rt.sandbox.transactions() - before} transactions`,
  );
});

test('a range too large for 30 s: finished rows are answered, the rest say so, and recalculating continues', () => {
  // 2 s per request: at 40 in parallel, 20 s of rounds cover 400 answers and no more.
  const rt = newRuntime({ latencyMs: 2000 });
  rt.sheet().maxRows = 1200;
  const rows = Array.from({ length: 1000 }, (_, i) => [Number(phone(i))]);
  const first = rt.customFunction(rt.owner, 'PHONELOOKUP', rows, 'FName') as string[][];
  const answered = first.filter((r) => !String(r[0]).startsWith('Not finished')).length;
  expect(answered).toBeGreaterThan(0);
  expect(answered).toBeLessThan(1000);
  expect(first.at(-1)?.[0]).toMatch(/^Not finished within the 30-second limit of a custom function/);
  expect(rt.sandbox.transactions()).toBe(answered);

  // Each recalculation pays only for rows not answered before, until all are done.
  let result = first;
  for (let i = 0; i < 5 && result.some((r) => String(r[0]).startsWith('Not finished')); i++) {
    result = rt.customFunction(rt.owner, 'PHONELOOKUP', rows, 'FName') as string[][];
  }
  expect(result.every((r) => !String(r[0]).startsWith('Not finished'))).toBe(true);
  expect(rt.sandbox.transactions()).toBe(1000);
  for (const e of rt.executions.filter((x) => x.fn === 'PHONELOOKUP'))
    expect(e.ended - e.started).toBeLessThan(30_000);
});

test('answers are packed within the cache limits: 3,000 distinct answers, recalculation still spends 0', () => {
  const rt = newRuntime();
  rt.sheet().maxRows = 3100;
  rt.type(
    'Sheet1',
    'A1:A3000',
    Array.from({ length: 3000 }, (_, i) => [Number(phone(i))]),
  );
  rt.type('Sheet1', 'B1', [['=EMAILVERIFY(A1:A3000)']]);
  rt.type('Sheet1', 'C1', [['=PHONELOOKUP(A1:A3000, "FName")']]);
  expect(rt.recalculate().errors).toEqual([]);
  // EMAILVERIFY finds no e-mail in a phone column: 3,000 invalid rows, nothing sent.
  expect(rt.sandbox.transactions()).toBe(3000);
  // At most 1,000 items, or CacheService drops the oldest: one item per answer would lose 2,100 of them.
  // 199 buckets and the hint, and the allowance's count in 3 copies (issue 39).
  expect(rt.documentCache.entries.size).toBeLessThanOrEqual(203);
  expect(rt.documentCache.evictions).toBe(0);
  for (const entry of rt.documentCache.entries.values())
    expect(Buffer.byteLength(entry.value)).toBeLessThan(100 * 1024);

  rt.recalculate();
  expect(rt.sandbox.transactions()).toBe(3000);

  // Answers are kept for the cache's longest expiry, 6 hours; after that a recalculation asks again.
  rt.clock.advance(6 * 3600 * 1000);
  rt.recalculate();
  expect(rt.sandbox.transactions()).toBe(6000);
});
