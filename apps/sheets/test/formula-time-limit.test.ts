// Issue 35, item 9: Apps Script stops a custom function at 30 s, and what it had not kept is lost.
// A fetch round that cannot end in time must not start: its answers would be paid for and never
// kept, and the recalculation would buy them again. A formula starts a round only if the last
// round's duration still fits in what remains of its 30 s, with a margin; rows it did not get to
// say so, and the next recalculation buys only those.
import { expect, test } from 'vitest';
import { newRuntime, phone, referenceRecord } from './helpers.js';
import type { Runtime } from './runtime/index.js';

/** Recalculates the formula `times` times; what each returned or the error it ended with. */
function recalculations(rt: Runtime, rows: number[][], times: number): (string[][] | string)[] {
  const out: (string[][] | string)[] = [];
  for (let i = 0; i < times; i++) {
    try {
      out.push(rt.customFunction(rt.owner, 'PHONELOOKUP', rows, 'FName') as string[][]);
    } catch (error) {
      out.push((error as Error).message);
    }
  }
  return out;
}

const notFinished = (rows: string[][] | string) =>
  typeof rows === 'string'
    ? -1
    : rows.filter((r) => /^Not finished within the 30-second/.test(String(r[0]))).length;

test('16 s per request, 80 phones: one round of 40, the rest wait for a recalculation; 80 paid for 80', () => {
  const rt = newRuntime({ latencyMs: 16_000 });
  const rows = Array.from({ length: 80 }, (_, i) => [Number(phone(i))]);
  const [first] = recalculations(rt, rows, 1);
  const afterFirst = rt.sandbox.transactions();
  const [second, third] = recalculations(rt, rows, 2);
  // Before the fix: the second round started at 16 s, Apps Script stopped the formula at 30 s with 80
  // paid and 40 kept, and the recalculation bought the 40 again: 120 for 80.
  expect({
    first: notFinished(first as string[][]),
    afterFirst,
    afterAll: rt.sandbox.transactions(),
  }).toEqual({
    first: 40,
    afterFirst: 40,
    afterAll: 80,
  });
  rows.forEach(([p], i) => {
    expect((second as string[][])[i]).toEqual([
      referenceRecord('/v3/lookup/phone', { Phone: String(p) }).Name.FName,
    ]);
  });
  expect(third).toEqual(second);
  for (const e of rt.executions.filter((x) => x.fn === 'PHONELOOKUP')) {
    expect(e.error).toBeNull();
    expect(e.ended - e.started).toBeLessThan(30_000);
  }
});

test('latency with a long tail (median 2 s, p99 8 s): no formula is stopped, and each phone is paid once', () => {
  // A round lasts as long as its slowest answer: from one round to the next that varies by half.
  const rt = newRuntime({ latencyMs: 2_000, sandbox: { latencyP99Ms: 8_000 } });
  const rows = Array.from({ length: 400 }, (_, i) => [Number(phone(i))]);
  const results = recalculations(rt, rows, 12);
  const killed = results.filter((r) => typeof r === 'string');
  expect({ killed, transactions: rt.sandbox.transactions() }).toEqual({ killed: [], transactions: 400 });
  expect(notFinished(results.at(-1) as string[][])).toBe(0);
  for (const e of rt.executions.filter((x) => x.fn === 'PHONELOOKUP'))
    expect(e.ended - e.started).toBeLessThan(30_000);
});
