// `pnpm start`'s two runs (the demo's file, its operations, the embedded sandbox): the breakdown the
// CLI prints, and the one in --json, against the output file each run wrote.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { breakdownColumns, getOperation } from '@enrich/core';
import { afterAll, describe, expect, it } from 'vitest';
import { grouped } from '../src/terminal-text.js';
import { readRecords, runCli, tempDir } from './helpers.js';

const leads = join(import.meta.dirname, '..', '..', '..', 'examples', 'leads.csv');
const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** How many ok rows of the output hold each value of a column. */
function countsIn(path: string, column: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const row of readRecords(path)) {
    if (row.status !== 'ok') continue;
    const value = row[column] as string;
    counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return counts;
}

describe.each(['phone-lookup', 'email-verify'] as const)('the demo run of %s', (id) => {
  const op = getOperation(id);
  const out = join(dir, `leads.${id}.csv`);

  it("prints a breakdown whose counts are the output file's", async () => {
    const ran = await runCli([id, '--sandbox', '--in', leads, '--out', out], { env: {}, cwd: dir });
    expect(ran.code).toBe(0);
    const printed = ran.stdout + ran.stderr;
    expect(printed).toContain('What came back:');
    for (const { column } of breakdownColumns(op)) {
      const counts = countsIn(out, column);
      expect(counts.size).toBeGreaterThan(1);
      for (const [value, count] of counts) {
        // "    VERIFIED       141   52%  ██████████  likely: ..."
        expect(printed).toMatch(new RegExp(`\\n {4}${value} +${grouped(count)} +\\d+%`));
      }
    }
  });

  it('gives the same breakdown in --json, counted again from the cache', async () => {
    const ran = await runCli([id, '--sandbox', '--in', leads, '--out', out, '--json'], { env: {}, cwd: dir });
    expect(ran.code).toBe(0);
    const summary = JSON.parse(ran.stdout);
    expect(summary.transactions).toBe(0);
    const rows = readRecords(out);
    expect(summary.breakdown.rows).toBe(rows.length);
    expect(summary.breakdown.answered).toBe(rows.filter((r) => r.status === 'ok').length);
    for (const field of summary.breakdown.fields) {
      const fromJson = new Map(field.values.map((v: { value: string; count: number }) => [v.value, v.count]));
      expect(fromJson).toEqual(countsIn(out, field.column));
    }
  });
});
