// The breakdown of a run against its output: each coded value's count equals the rows of the
// output holding it, whether the rows waited in the window, on disk or came from the cache.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { breakdownColumns, scoreBand } from '@enrich/core';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { type BulkSummary, runBulk } from '../src/index.js';
import { useSandbox } from './fixtures.js';
import { op, phone, sandboxRun } from './sandbox-run.js';

// A little latency, so that rows wait in the window and on disk for their answers.
const at = useSandbox({ latencyMs: 5 });

/** Each coded column's values in the output, counted (ok rows only), as the breakdown counts them. */
function countsInOutput(path: string): Map<string, Map<string, number>> {
  const [header, ...rows] = parse(readFileSync(path, 'utf8')) as string[][];
  const status = (header as string[]).indexOf('status');
  const counts = new Map<string, Map<string, number>>();
  for (const column of breakdownColumns(op)) {
    const at = (header as string[]).indexOf(column.column);
    const values = new Map<string, number>();
    for (const row of rows) {
      if (row[status] !== 'ok') continue;
      const cell = row[at] as string;
      const value = column.countedAs === 'bands' ? scoreBand(cell) : cell;
      values.set(value, (values.get(value) ?? 0) + 1);
    }
    counts.set(column.column, values);
  }
  return counts;
}

function countsInBreakdown(summary: BulkSummary): Map<string, Map<string, number>> {
  return new Map(
    (summary.breakdown?.fields ?? []).map((f) => [
      f.column,
      new Map(f.values.map((v) => [v.value, v.count])),
    ]),
  );
}

describe('the breakdown of a run', () => {
  it('counts each value as often as the output holds it, through the window, the spill and the cache', async () => {
    const { dir, server } = at;
    const lines = ['name,phone'];
    // 300 rows of 40 phones: most rows repeat a request, many wait for its answer.
    for (let i = 0; i < 300; i++) lines.push(i % 25 === 0 ? `Bad ${i},12` : `P ${i},${phone((i * 7) % 40)}`);
    const inPath = join(dir, 'in.csv');
    writeFileSync(inPath, `${lines.join('\n')}\n`);
    const outPath = join(dir, 'out.csv');
    const run = () => runBulk(sandboxRun(server, { inPath, outPath }, { windowRows: 8, concurrency: 3 }));

    for (const pass of ['first', 'cached']) {
      const summary = await run();
      expect(summary.completed, pass).toBe(true);
      if (pass === 'cached') expect(summary.transactions).toBe(0);
      const b = summary.breakdown;
      expect(b?.rows).toBe(300);
      expect(b?.answered).toBe(summary.ok);
      expect(b?.outcomes.find((o) => o.outcome === 'invalid')?.count).toBe(12);
      expect(countsInBreakdown(summary), pass).toEqual(countsInOutput(outPath));
      const deliverable = b?.fields[0]?.values.reduce((sum, v) => sum + v.count, 0);
      expect(deliverable).toBe(summary.ok);
    }
  });

  it('is not given for a run that did not complete', async () => {
    const { dir, server } = at;
    const inPath = join(dir, 'in.csv');
    writeFileSync(inPath, `phone\n${phone(1)}\n`);
    const controller = new AbortController();
    controller.abort();
    const summary = await runBulk({
      ...sandboxRun(server, { inPath, outPath: join(dir, 'out.csv') }),
      signal: controller.signal,
    });
    expect(summary.completed).toBe(false);
    expect(summary.breakdown).toBeUndefined();
  });
});
