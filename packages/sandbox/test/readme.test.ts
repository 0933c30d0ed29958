// The README's table of reserved inputs is what the sandbox does.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { MISBEHAVE_MODES, RESERVED } from '../src/index.js';

it('documents every reserved input', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  for (const r of RESERVED) {
    const row = readme.split('\n').find((line) => line.includes(r.phone));
    expect(row, `README row for ${r.outcome}`).toBeDefined();
    expect(row).toContain(r.email);
    expect(row).toContain(r.lastName);
  }
});

it('documents every misbehave mode in its table, and no other', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Misbehaving on request'),
    readme.indexOf('## Transactions'),
  );
  const documented = [...section.matchAll(/^\| `([a-z0-9-]+)` +\|/gm)].map((m) => m[1]);
  expect(documented.sort()).toEqual([...MISBEHAVE_MODES].sort());
});

it('documents every option of the command, with its environment variable, in the Options table', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const cli = readFileSync(new URL('../src/cli.ts', import.meta.url), 'utf8');
  const table = readme.slice(readme.indexOf('## Options'), readme.indexOf('## What it enforces'));
  const options = cli.slice(cli.indexOf('options: {'), cli.indexOf('help: {'));
  const flags = [...options.matchAll(/^\s+'?([a-z][a-z0-9-]*)'?: \{ type:/gm)].map((m) => m[1]);
  expect(flags).toContain('rate');
  for (const flag of flags) expect(table, `--${flag}`).toMatch(new RegExp(`^\\| \`--${flag}[ \`]`, 'm'));
  const variables = new Set([...cli.matchAll(/\bSANDBOX_[A-Z0-9_]+/g)].map((m) => m[0]));
  expect(variables.size).toBe(flags.length);
  for (const variable of variables) expect(table, variable).toContain(`\`${variable}`);
});
