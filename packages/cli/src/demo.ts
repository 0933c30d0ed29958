// `pnpm start` (the repository's main job): enriches examples/leads.csv with Phone Lookup and
// Email Verify against the embedded sandbox (no key, no network) and prints each run's summary.
//
// The answer cache (examples/out/.enrich-cache.jsonl) is kept between demos on purpose: the second
// `pnpm start` shows every answer coming from it, 0 transactions spent. `rm -rf examples/out`
// starts afresh.
import { join, relative, resolve } from 'node:path';
import { main, processIo } from './main.js';

const root = resolve(import.meta.dirname, '..', '..', '..');
const io = { ...processIo(), cwd: root };
const input = join('examples', 'leads.csv');
const outDir = join('examples', 'out');

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
say(`Enriched CSVs are in ${relative(here, join(root, outDir)) || '.'}/ (git-ignored).`);
say(
  'Run it again and every answer comes from the answer cache: 0 transactions. rm -rf examples/out to start afresh.',
);
process.exitCode = exitCode;
