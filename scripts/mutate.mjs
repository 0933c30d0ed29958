// `pnpm mutate` in a package (or at the root, every package in turn): mutation testing with
// StrykerJS of the modules its mutation.json lists, one module at a time, one test process each.
// `pnpm mutate keys retry` runs only those modules; options go to Stryker (`pnpm mutate keys
// --force` tests every mutant again, ignoring the incremental result). Not part of `pnpm test`: a
// full first run takes minutes per module; later runs are incremental (scripts/stryker.config.mjs).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const { modules } = JSON.parse(readFileSync('mutation.json', 'utf8'));
const args = process.argv.slice(2);
const asked = args.filter((arg) => !arg.startsWith('-'));
const options = args.filter((arg) => arg.startsWith('-'));
const unknown = asked.filter((name) => !(name in modules));
if (unknown.length > 0) {
  console.error(
    `no such module in mutation.json: ${unknown.join(', ')} (there are: ${Object.keys(modules).join(', ')})`,
  );
  process.exit(2);
}
const config = fileURLToPath(new URL('./stryker.config.mjs', import.meta.url));
let failed = 0;
for (const name of asked.length > 0 ? asked : Object.keys(modules)) {
  console.log(`\n=== mutate ${name}: ${modules[name].mutate.join(' ')}`);
  const run = spawnSync('stryker', ['run', config, ...options], {
    stdio: 'inherit',
    env: { ...process.env, MUTATE_MODULE: name, MUTATE_TESTS: modules[name].tests.join(',') },
  });
  if (run.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
