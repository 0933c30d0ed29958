// `pnpm --filter @enrich/mcp hostile-report` (and the root's `pnpm hostile-report`, after the CLI's):
// runs the doors of issue 34 (test/door-scenarios.ts) against the built server and a real service on
// 127.0.0.1, and prints, for each, the requests the service received, the transactions it counted,
// the answer cache's lines, the spend ledger's transactions and what the tools said.
import { DOOR_SCENARIOS } from '../test/door-scenarios.js';

const only = process.argv.slice(2);
const rows: string[][] = [['door', 'requests', 'counted', 'journal', 'ledger', 'said', 'time', 'also']];
for (const scenario of DOOR_SCENARIOS) {
  if (only.length > 0 && !only.includes(scenario.id)) continue;
  const m = await scenario.run();
  rows.push([
    scenario.id,
    String(m.requests),
    String(m.counted),
    String(m.journal),
    String(m.ledger),
    m.said,
    `${(m.ms / 1000).toFixed(1)} s`,
    Object.entries(m.more)
      .map(([k, v]) => `${k}=${v}`)
      .join(' '),
  ]);
  console.error(`  ${scenario.id}: ${scenario.issue}`);
}
const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
for (const row of rows)
  console.log(
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
process.exit(0);
