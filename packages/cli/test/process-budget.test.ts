// The real `enrich` binary as a child process with --max-transactions: it spends exactly what the
// budget allows, min(cap, distinct requests), under the default --concurrency auto as under a fixed
// number. The sandbox answers slowly enough (LATENCY_MS) that most requests wait for a turn (the pace
// starts at 8 in flight) while the budget is decided: counting those waiters as spent made a cap of
// 5 spend nothing. What the sandbox counted, the journal's answers, the ledger and the summary agree.
import { INITIAL_CONCURRENCY } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { budgetRun, BUDGET_DISTINCT as DISTINCT } from './doors.scenario.js';
import { server, useSandbox } from './process-setup.js';

useSandbox();

describe('--max-transactions in a process', () => {
  const below = [5, INITIAL_CONCURRENCY + 4];
  const cases = [
    ...[...below, DISTINCT, DISTINCT + 20].map((cap) => ({
      concurrency: 'auto (the default)',
      flags: [],
      cap,
    })),
    ...[5, DISTINCT].map((cap) => ({ concurrency: '4', flags: ['--concurrency', '4'], cap })),
  ];

  it.each(cases)(
    '--concurrency $concurrency, a cap of $cap: spends min(cap, distinct), counted alike everywhere',
    async ({ flags, cap }) => {
      const m = await budgetRun(server, cap, flags);
      const expected = Math.min(cap, DISTINCT);
      expect(m.stderr).not.toMatch(/unexpected error/);
      expect(m.code).toBe(cap < DISTINCT ? 8 : 0);
      expect({ counted: m.counted, journal: m.journal, ledger: m.ledger, summary: m.more.summary }).toEqual({
        counted: expected,
        journal: expected,
        ledger: expected,
        summary: expected,
      });
      // Each distinct phone is in two rows: the second is answered by the first's request.
      expect(m.statuses?.ok).toBe(expected * 2);
      expect(m.more.notSentRows).toBe((DISTINCT - expected) * 2);
    },
  );
});
