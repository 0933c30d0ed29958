// The README's table of reserved inputs is what the sandbox does.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { COMMAND_FLAGS } from '../src/command-flags.js';
import { MISBEHAVE_MODES, RESERVED } from '../src/index.js';
import { KNOB_RULES, MAX_LATENCY_MS } from '../src/knob-rules.js';

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
  const table = readme.slice(readme.indexOf('## Options'), readme.indexOf('## What it enforces'));
  const flags = COMMAND_FLAGS.filter((f) => f.flag !== 'help');
  expect(flags.map((f) => f.flag)).toContain('rate');
  for (const { flag, variable, value } of flags) {
    expect(table, `--${flag}`).toMatch(new RegExp(`^\\| \`--${flag}${value ? ` ${value}` : ''}\``, 'm'));
    expect(table, `${variable}`).toContain(`\`${variable}`);
  }
});

it('states the rule of every knob, by its flag and its configure field', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const table = readme.slice(
    readme.indexOf('### What each knob takes'),
    readme.indexOf('## What it enforces'),
  );
  for (const { knob, flag } of KNOB_RULES) {
    const row = table.split('\n').find((line) => line.includes(`| \`${knob}\``));
    expect(row, knob).toBeDefined();
    if (flag) expect(row).toContain(`\`--${flag.name}\``);
  }
  expect(table).toContain(String(MAX_LATENCY_MS));
});
