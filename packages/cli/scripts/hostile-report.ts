// `pnpm --filter @enrich/cli hostile-report`: runs every misbehaviour of issue 8, and the edges of
// issue 27 (a broken row, an --out of the user's, e-mails that waste money...), against a real HTTP
// service on 127.0.0.1 (the sandbox's misbehave modes, or a small test server) and prints, for each,
// the requests the service received, the transactions it counted, what the journal kept, what the
// output holds, and the exit code. The same scenarios are asserted by test/hostile.test.ts and the
// edge-*.test.ts files.

import { DOOR_SCENARIOS } from '../test/doors.scenario.js';
import { EDGE_SCENARIOS } from '../test/edge-scenarios.js';
import { SCENARIOS } from '../test/hostile-scenarios.js';

const only = process.argv.slice(2);
const rows: string[][] = [
  ['misbehaviour', 'requests', 'counted', 'journal', 'ledger', 'output', 'exit', 'time', 'also'],
];
for (const scenario of [...SCENARIOS, ...EDGE_SCENARIOS, ...DOOR_SCENARIOS]) {
  if (only.length > 0 && !only.includes(scenario.id)) continue;
  const m = await scenario.run();
  const output = m.statuses
    ? Object.entries(m.statuses)
        .map(([status, count]) => `${count} ${status}`)
        .join(', ')
    : 'not written';
  const journal =
    m.journalUnreadable > 0 ? `${m.journal} (${m.journalUnreadable} unreadable)` : String(m.journal);
  const also = Object.entries(m.more).map(([k, v]) => `${k}=${v}`);
  if (m.extraColumns.length > 0) also.push(`extra columns: ${m.extraColumns.join(', ')}`);
  rows.push([
    scenario.id,
    String(m.requests),
    String(m.counted),
    journal,
    m.ledger === undefined ? '' : String(m.ledger),
    output,
    Number.isNaN(m.code) ? '' : String(m.code),
    `${(m.ms / 1000).toFixed(1)} s`,
    also.join(' '),
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
