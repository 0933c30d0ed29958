// The real `enrich` binary as a child process with --max-transactions: it spends exactly what the
// budget allows, min(cap, distinct requests), under the default --concurrency auto as under a fixed
// number. The sandbox answers slowly enough (LATENCY_MS) that most requests wait for a turn (the pace
// starts at 8 in flight) while the budget is decided: counting those waiters as spent made a cap of
// 5 spend nothing. What the sandbox counted, the journal's answers, the ledger and the summary agree.
import { join } from 'node:path';
import { LedgerFile } from '@enrich/bulk';
import { INITIAL_CONCURRENCY } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { CACHE_FILE } from '../src/main.js';
import { phone, readRecords, spawnCli, tempDir, writeCsv } from './helpers.js';
import { env, journalKeys, server, useSandbox } from './process-setup.js';

useSandbox();

const LATENCY_MS = 40;
const DISTINCT = 30;

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
      server.sandbox.configure({ latencyMs: LATENCY_MS });
      const cwd = tempDir();
      // Each distinct phone twice: the second row is answered by the first's request.
      writeCsv(join(cwd, 'in.csv'), [
        ['phone'],
        ...Array.from({ length: DISTINCT * 2 }, (_, i) => [phone(i % DISTINCT)]),
      ]);
      const ledger = join(cwd, 'ledger.jsonl');
      const args = ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json'];
      const ran = await spawnCli([...args, ...flags, '--max-transactions', String(cap)], {
        env: { ...env, ENRICH_LEDGER: ledger },
        cwd,
      }).done;
      const expected = Math.min(cap, DISTINCT);
      expect(ran.stderr).not.toMatch(/unexpected error/);
      expect(ran.code).toBe(cap < DISTINCT ? 8 : 0);
      const counted = {
        service: server.sandbox.stats().transactions,
        journal: journalKeys(join(cwd, CACHE_FILE)).size,
        ledger: new LedgerFile(ledger).read().entries.reduce((sum, e) => sum + e.count, 0),
        summary: JSON.parse(ran.stdout).transactions,
      };
      expect(counted).toEqual({ service: expected, journal: expected, ledger: expected, summary: expected });
      const status = readRecords(join(cwd, 'out.csv')).map((r) => r.status ?? '');
      expect(status.filter((s) => s === 'ok')).toHaveLength(expected * 2);
      expect(status.filter((s) => s.startsWith('error: not sent: the transaction budget'))).toHaveLength(
        (DISTINCT - expected) * 2,
      );
    },
  );
});
