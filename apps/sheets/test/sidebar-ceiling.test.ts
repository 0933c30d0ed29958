// Issue 35, item 8: the number Check showed is the run's ceiling. It is kept in the checkpoint, and a
// run whose range changed since Check (rows not yet done pasted over with new phones) stops at it,
// saying what changed and what to do, instead of buying whatever the range now holds.
import { expect, test } from 'vitest';
import { newRuntime, phone } from './helpers.js';
import { type Plan, type Progress, request, setUp } from './sidebar-run-helpers.js';

/** 600 rows: 100 distinct phones, then 500 repeats of them; Check says 100 transactions. */
function hundredDistinct(): (string | number)[][] {
  return Array.from({ length: 600 }, (_, i) => [`Lead ${i}`, phone(i % 100)]);
}

test('rows pasted over after the first chunk: the run stops at the 100 Check showed, and says what to do', () => {
  const rt = newRuntime({ latencyMs: 100 });
  setUp(rt, hundredDistinct());
  const req = request(rt, rt.owner);
  const plan = rt.scriptRun(rt.owner, 'planRun', req) as Plan;
  expect(plan.transactions).toBe(100);

  let progress = rt.scriptRun(rt.owner, 'startRun', req, false, plan.transactions) as Progress;
  progress = rt.scriptRun(rt.owner, 'runChunk', progress.runId) as Progress;
  expect(progress.counts.done).toBe(250);
  expect(rt.sandbox.transactions()).toBe(100);

  // The 350 rows not yet done are pasted over with 350 new phones.
  rt.type(
    'Sheet1',
    'A252:B601',
    Array.from({ length: 350 }, (_, i) => [`New ${i}`, phone(5000 + i)]),
  );
  let halted: string | null = null;
  for (let calls = 0; calls < 5 && !progress.finished && halted === null; calls++) {
    progress = rt.scriptRun(rt.owner, 'runChunk', progress.runId) as Progress;
    halted = (progress as Progress & { halted?: string | null }).halted ?? null;
  }
  expect(rt.sandbox.transactions()).toBe(100);
  expect(progress.finished).toBe(false);
  expect(halted).toMatch(/^The range changed since Check: /);
  expect(halted).toMatch(/at most 100 transactions/);
  expect(halted).toMatch(/Check again/);
  // Nothing was written past the rows the plan paid for.
  expect(rt.values('Sheet1', 'C252:C252')[0]?.[0]).toBe('');

  // The next step: Check again shows what the rest costs now, and a new run spends exactly that.
  const again = rt.scriptRun(rt.owner, 'planRun', req) as Plan;
  expect(again.transactions).toBe(350);
  let next = rt.scriptRun(rt.owner, 'startRun', req, true, again.transactions) as Progress;
  while (!next.finished) next = rt.scriptRun(rt.owner, 'runChunk', next.runId) as Progress;
  expect(rt.sandbox.transactions()).toBe(450);
  expect(next.counts.spent).toBe(350);
});

test('the range grew between Check and Start: Start refuses, naming both numbers', () => {
  const rt = newRuntime();
  setUp(rt, hundredDistinct());
  const req = request(rt, rt.owner);
  const plan = rt.scriptRun(rt.owner, 'planRun', req) as Plan;
  rt.type(
    'Sheet1',
    'A502:B601',
    Array.from({ length: 100 }, (_, i) => [`New ${i}`, phone(7000 + i)]),
  );
  expect(() => rt.scriptRun(rt.owner, 'startRun', req, false, plan.transactions)).toThrow(
    /^The range changed since Check: it now needs up to 200 transactions; Check showed 100\. Check again/,
  );
  expect(rt.sandbox.transactions()).toBe(0);
});
