// The README's table of reserved inputs is what the sandbox does.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { RESERVED } from '../src/index.js';

it('documents every reserved input', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  for (const r of RESERVED) {
    const row = readme.split('\n').find((line) => line.includes(r.phone));
    expect(row, `README row for ${r.outcome}`).toBeDefined();
    expect(row).toContain(r.email);
    expect(row).toContain(r.lastName);
  }
});
