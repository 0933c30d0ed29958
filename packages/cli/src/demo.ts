// `pnpm start` (the repository's main job): enriches examples/leads.csv with Phone Lookup and
// Email Verify against the embedded sandbox (no key, no network) and prints each run's summary.
//
// The answer cache (examples/out/.enrich-cache.jsonl) is kept between demos on purpose: the second
// `pnpm start` shows every answer coming from it, 0 transactions spent. `rm -rf examples/out`
// starts afresh.
import { isAbsolute, join, relative, resolve } from 'node:path';
import { demoSpendText } from './demo-spend.js';
import { main, processIo } from './main.js';

const root = resolve(import.meta.dirname, '..', '..', '..');
const io = { ...processIo(), cwd: root };
const input = join('examples', 'leads.csv');
// ENRICH_DEMO_OUT: another folder (the demo's test uses a temporary one, leaving examples/out alone).
const outDir = process.env.ENRICH_DEMO_OUT || join('examples', 'out');

const say = (text: string) => process.stdout.write(`${text}\n`);
say(
  'enrich demo: the embedded sandbox stands in for the service (no API key, nothing leaves this machine).\n',
);

let exitCode = 0;
for (const op of ['phone-lookup', 'email-verify']) {
  const out = join(outDir, `leads.${op}.csv`);
  say(`$ enrich ${op} --sandbox --in ${input} --out ${out}`);
  const code = await main([op, '--sandbox', '--in', input, '--out', out], io);
  say('');
  if (code !== 0) exitCode = code;
}
// pnpm runs this in packages/cli; INIT_CWD is where the user typed the command.
const here = process.env.INIT_CWD ?? process.cwd();
const near = relative(here, resolve(root, outDir));
const shownOut = near.startsWith('..') || isAbsolute(near) ? resolve(root, outDir) : near || '.';
say(`Enriched CSVs are in ${shownOut}/${process.env.ENRICH_DEMO_OUT ? '' : ' (git-ignored)'}.`);
say(demoSpendText(io.env));
say(
  `Run it again and every answer comes from the answer cache: 0 transactions. rm -rf ${shownOut} to start afresh.`,
);
process.exitCode = exitCode;
