// The --max-transactions budget against the sandbox over real HTTP: a run spends exactly what its
// budget allows, min(cap, distinct requests to buy), whatever the pace. The sandbox answers slowly
// enough (LATENCY_MS) that, under --concurrency auto, most requests wait for a turn (the pace starts
// at 8 in flight) while the budget is decided: counting those waiters as spent is what made a cap of
// 5 spend nothing. Each run is checked four ways: what the sandbox counted, the answers the journal
// holds, the spend ledger's figure and the summary.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_RETRY_POLICY, INITIAL_CONCURRENCY } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { describe, expect, it } from 'vitest';
import {
  type BulkOptions,
  type BulkSummary,
  LedgerFile,
  parseLine,
  runBulk,
  SpendRecorder,
} from '../src/index.js';
import { reserved, useSandbox } from './fixtures.js';
import { op, phone, sandboxRun } from './sandbox-run.js';

/** Long enough that requests past the pace's first 8 are still waiting for a turn when the budget is decided. */
const LATENCY_MS = 40;
const DISTINCT = 30;

const at = useSandbox({ latencyMs: LATENCY_MS });

/** `leading` rows first, then DISTINCT distinct phones, each twice. */
function writeLeads(leading: readonly string[] = []): string {
  const inPath = join(at.dir, 'in.csv');
  const phones = Array.from({ length: DISTINCT * 2 }, (_, i) => phone(i % DISTINCT));
  writeFileSync(inPath, `phone\n${[...leading, ...phones].join('\n')}\n`);
  return inPath;
}

/** The answers the journal holds: distinct request keys. */
function journalAnswers(cachePath: string): number {
  const keys = new Set<string>();
  for (const text of readFileSync(cachePath, 'utf8').split('\n')) {
    const line = parseLine(text);
    if (line) keys.add(line.key);
  }
  return keys.size;
}

interface Spent {
  readonly summary: BulkSummary;
  /** What the sandbox counted as transactions. */
  readonly service: number;
  readonly journal: number;
  /** The spend ledger's figure for the run. */
  readonly ledger: number;
}

/** Runs with the budget and concurrency given, the run's paid transactions recorded in a ledger. */
async function spend(
  inPath: string,
  maxTransactions: number,
  concurrency: number | 'auto',
  more: Partial<BulkOptions> = {},
): Promise<Spent> {
  const { server, dir } = at;
  const o = sandboxRun(server, { inPath, outPath: join(dir, 'out.csv') });
  const ledger = new LedgerFile(join(dir, 'ledger.jsonl'));
  const recorder = new SpendRecorder({ ledger, operation: op.id, origin: server.url, client: 'cli' });
  const summary = await runBulk({
    ...o,
    concurrency,
    maxTransactions,
    ...more,
    onPaid: (n) => recorder.add(n),
  });
  recorder.close();
  return {
    summary,
    service: server.sandbox.stats().transactions,
    journal: journalAnswers(o.cachePath),
    ledger: ledger.read().entries.reduce((sum, e) => sum + e.count, 0),
  };
}

describe('--max-transactions spends exactly what it allows', () => {
  // Below the pace's first 8 in flight, between 8 and the distinct requests, at them, above them.
  const caps = [5, INITIAL_CONCURRENCY + 4, DISTINCT, DISTINCT + 20];
  const cases = [
    ...caps.map((cap) => ['auto', cap] as const),
    ...[5, DISTINCT, 50].map((cap) => [4, cap] as const),
  ];

  it.each(cases)(
    '--concurrency %s, a cap of %i: min(cap, distinct), counted alike everywhere',
    async (concurrency, cap) => {
      const expected = Math.min(cap, DISTINCT);
      const { summary, service, journal, ledger } = await spend(writeLeads(), cap, concurrency);
      expect({ service, journal, ledger, transactions: summary.transactions }).toEqual({
        service: expected,
        journal: expected,
        ledger: expected,
        transactions: expected,
      });
      expect(summary.requests).toBe(expected);
      // Rows of requests the budget did not allow say so; a budget the file fits in stops nothing.
      expect(summary.stopped).toBe(cap < DISTINCT ? 'budget' : undefined);
      expect(summary.notSent).toBe((DISTINCT - expected) * 2);
      expect(summary.errors).toBe(0);
    },
  );

  it('a request that ends unpaid (a 500 after its retries) gives its place back to the next one', async () => {
    const fault = reserved('fault').phone;
    const cap = 5;
    const { summary, service, journal, ledger } = await spend(writeLeads([fault]), cap, 'auto');
    expect({ service, journal, ledger, transactions: summary.transactions }).toEqual({
      service: cap,
      journal: cap,
      ledger: cap,
      transactions: cap,
    });
    expect(summary.stopped).toBe('budget');
    expect(summary.errors).toBe(1);
    expect(summary.notSent).toBe((DISTINCT - cap) * 2);
  });

  it('a request that may have been paid (sent, never answered) keeps its place: the service counts the cap', async () => {
    const slow = reserved('slow').phone;
    const cap = 5;
    // The slow phone's answer comes 2 s late; a 500 ms deadline leaves it unanswered, maybe paid.
    const { summary, service, journal, ledger } = await spend(writeLeads([slow]), cap, 'auto', {
      transport: () => createFetchTransport({ timeoutMs: 500 }),
      policy: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 10, maxDelayMs: 50 },
    });
    expect(summary.unanswered).toBe(1);
    expect(service).toBe(cap);
    expect({ journal, ledger, transactions: summary.transactions }).toEqual({
      journal: cap - 1,
      ledger: cap - 1,
      transactions: cap - 1,
    });
    expect(summary.stopped).toBe('budget');
    expect(summary.notSent).toBe((DISTINCT - (cap - 1)) * 2);
  });
});
