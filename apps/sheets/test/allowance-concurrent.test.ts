// Issue 39, target: spent never exceeds the allowance with formulas and a sidebar run at the same
// time. 600 single-cell formulas (distinct phones) recalculated as concurrent executions, while the
// owner's sidebar run over 400 other phones runs its chunks among them; one allowance of 300 a day
// for the owner's key: 300 transactions, not one more, and the shared count says so.
import { expect, test } from 'vitest';
import { newRuntime, phone } from './helpers.js';
import type { ConcurrentCall } from './runtime/run-concurrently.js';

interface Progress {
  runId: string;
  finished: boolean;
  halted: string | null;
  heldByAllowance: boolean;
  counts: { spent: number; done: number };
}

test('formulas and a sidebar run at the same time never pass the allowance together', {
  timeout: 300_000,
}, () => {
  const rt = newRuntime({ allowance: 'default', latencyMs: 300 });
  rt.run(rt.owner, 'saveAllowance', { day: 300, month: 5_000 });
  rt.sheet().maxRows = 1_200;
  // Column A: 600 phones under single-cell formulas; column D: 400 other phones for the sidebar.
  rt.type('Sheet1', 'A1', [['Phone']]);
  rt.type(
    'Sheet1',
    'A2:A601',
    Array.from({ length: 600 }, (_, i) => [phone(i)]),
  );
  for (let i = 0; i < 600; i++) rt.type('Sheet1', `B${i + 2}`, [[`=PHONELOOKUP(A${i + 2}, "FName")`]]);
  rt.type('Sheet1', 'D1', [['Mobile']]);
  rt.type(
    'Sheet1',
    'D2:D401',
    Array.from({ length: 400 }, (_, i) => [phone(10_000 + i)]),
  );
  const request = {
    selection: { sheetId: rt.sheet().id, row: 1, column: 4, numRows: 401, numColumns: 1 },
    operation: 'phone-lookup',
    mapping: { Phone: 0 },
    columns: ['FName'],
    targetColumn: 6,
  };
  const plan = rt.scriptRun(rt.owner, 'planRun', request) as {
    transactions: number;
    stopsAtRow: number | null;
  };
  expect(plan).toMatchObject({ transactions: 400, stopsAtRow: 302 });
  const started = rt.scriptRun(rt.owner, 'startRun', request, false, 400) as Progress;

  // The formulas as Sheets runs many at once, and two of the run's chunks among them.
  const formulas: ConcurrentCall[] = Array.from({ length: 600 }, (_, i) => ({
    user: rt.owner,
    mode: 'custom',
    fn: 'PHONELOOKUP',
    args: [phone(i), 'FName'],
  }));
  const chunk = (startsAfterMs: number): ConcurrentCall => ({
    user: rt.owner,
    mode: 'full',
    fn: 'runChunk',
    args: [started.runId],
    startsAfterMs,
  });
  const results = rt.runConcurrently(
    [chunk(0), ...formulas.slice(0, 15), chunk(2_000), ...formulas.slice(15)],
    30,
  );
  const spent = rt.sandbox.transactions();
  expect(spent).toBeLessThanOrEqual(300);
  // Everything that could claim did: the allowance was used up, not left over.
  expect(spent).toBe(300);
  const held = results.filter(
    (r) => 'value' in r && String((r.value as string[][])[0]?.[0]).startsWith('Allowance reached (300 a day'),
  ).length;
  const chunkResults = results.filter((r) => 'value' in r && typeof (r.value as Progress).runId === 'string');
  // The run's count is cumulative: its last chunk's is what it spent.
  const runSpent = Math.max(...chunkResults.map((r) => (r as { value: Progress }).value.counts.spent));
  // Both competed for the same allowance.
  expect(runSpent).toBeGreaterThan(0);
  expect(spent - runSpent).toBeGreaterThan(0);
  console.log(
    `600 formulas and a 400-row sidebar run at the same time, allowance 300 a day: ${spent} transactions ` +
      `(run ${runSpent}, formulas ${spent - runSpent}); ${held} formula cells say the allowance is reached`,
  );
  // The shared count agrees with the service's: nothing was claimed and lost.
  expect(rt.run(rt.owner, 'getAllowance')).toMatchObject({ spentToday: 300, left: 0 });
  // Later executions, formulas or run, buy nothing more today.
  rt.recalculateConcurrently(rt.owner, 30);
  const more = rt.scriptRun(rt.owner, 'runChunk', started.runId) as Progress;
  expect(more.heldByAllowance || more.finished).toBe(true);
  expect(rt.sandbox.transactions()).toBe(300);
});

test('a sidebar run stops at the allowance, says where, and resuming after raising it pays for nothing twice', () => {
  const rt = newRuntime({ allowance: 'default' });
  rt.sheet().maxRows = 800;
  rt.type('Sheet1', 'A1:B1', [['Name', 'Phone']]);
  // 600 rows, 550 distinct phones: repeats are copied, not bought.
  rt.type(
    'Sheet1',
    'A2:B601',
    Array.from({ length: 600 }, (_, i) => [`Lead ${i}`, phone(i < 550 ? i : i - 550)]),
  );
  const request = {
    selection: { sheetId: rt.sheet().id, row: 1, column: 1, numRows: 601, numColumns: 2 },
    operation: 'phone-lookup',
    mapping: { Phone: 1 },
    columns: ['FName'],
    targetColumn: 4,
  };
  const plan = rt.scriptRun(rt.owner, 'planRun', request) as {
    transactions: number;
    stopsAtRow: number | null;
    allowance: { left: number; by: string };
  };
  expect(plan).toMatchObject({ transactions: 550, stopsAtRow: 502, allowance: { left: 500, by: 'day' } });
  let progress = rt.scriptRun(rt.owner, 'startRun', request, false, 550) as Progress;
  while (!progress.finished && progress.halted === null)
    progress = rt.scriptRun(rt.owner, 'runChunk', progress.runId) as Progress;
  expect(progress.heldByAllowance).toBe(true);
  expect(progress.halted).toBe(
    'Your allowance in this spreadsheet is reached (500 transactions a day): the run stopped before row 502 and bought ' +
      'nothing more. Raise it under Spend and allowance, or resume tomorrow (UTC); the rows done so far stay.',
  );
  expect(rt.sandbox.transactions()).toBe(500);
  expect(rt.values('Sheet1', 'D501:D502')).toEqual([['ok'], ['']]);
  rt.run(rt.owner, 'saveAllowance', { day: 600 });
  while (!progress.finished) progress = rt.scriptRun(rt.owner, 'runChunk', progress.runId) as Progress;
  expect(rt.sandbox.transactions()).toBe(550);
  expect(rt.values('Sheet1', 'D2:D601').every((r) => r[0] === 'ok')).toBe(true);
});
