// `pnpm bench` (apps/vscode): the extension's activation time, as code-server's Developer: Show
// Running Extensions reports it, over a few fresh workbenches. A figure, not a test: it prints, and
// nothing fails on how large it is. Needs the packaged .vsix (the bench script packages it first)
// and code-server (scripts/install-test-tools.sh), as the end-to-end tests do.
import {
  activationTime,
  closeAll,
  notification,
  openWorkbench,
  runCommand,
  startCodeServer,
} from '../test/e2e/code-server';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const times: number[] = [];
for (let run = 1; run <= RUNS; run++) {
  const server = await startCodeServer({});
  const { context, page } = await openWorkbench(server);
  try {
    // Activated on its command, as a user's first use does.
    await runCommand(page, 'Enrichment: Try Without a Key');
    await notification(page, 'Trying without a key').waitFor();
    const ms = await activationTime(page);
    times.push(ms);
    console.log(`run ${run} of ${RUNS}: activation ${ms} ms`);
  } finally {
    await closeAll(context, server);
  }
}
const sorted = [...times].sort((a, b) => a - b);
console.log(
  `activation time of the Enrichment extension over ${RUNS} fresh workbenches: median ${sorted[Math.floor(RUNS / 2)]} ms, min ${sorted[0]} ms, max ${sorted.at(-1)} ms`,
);
