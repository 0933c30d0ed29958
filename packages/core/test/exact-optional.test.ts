// The SDK in a user's project with exactOptionalPropertyTypes on (issue 40): `baseUrl:
// process.env.X` was TS2379 there. Runs the workspace's tsc on the fixture project in
// test/exact-optional/, which also reads the key and both bases from the environment.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const project = join(dirname(fileURLToPath(import.meta.url)), 'exact-optional');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

describe('the SDK under exactOptionalPropertyTypes', () => {
  it('takes string | undefined for every optional option, input and call option', () => {
    let printed = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      printed = String((error as { stdout?: string }).stdout);
    }
    expect(printed).toBe('');
  });
});
