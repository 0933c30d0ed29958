// The command line is generated from the catalog: a command per operation, its flags from the
// operation's input fields, and the version from package.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATIONS, PERMITTED_USE } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { flagOf } from '../src/commands/field-option.js';
import { CLI_DIR, runCli, tempDir } from './helpers.js';

const run = (argv: string[]) => runCli(argv, { env: {}, cwd: tempDir() });

describe('the command line', () => {
  it('lists every operation of the catalog with its field flags', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    for (const op of OPERATIONS) {
      const flags = op.inputs.map((f) => `--${flagOf(f)}`).join(' ');
      expect(help.stdout).toMatch(
        new RegExp(`\\n  ${op.id}\\|${op.id.replace(/-/g, '_')} \\[options\\] +${op.title}: ${flags}\\n`),
      );
    }
    expect(help.stdout).toContain('check-key');
    // Where a user starts: the help ends with what the data may be used for.
    expect(help.stdout.trimEnd().endsWith(PERMITTED_USE)).toBe(true);
  });

  it("gives each operation's help its fields, bounds and output columns", async () => {
    for (const op of OPERATIONS) {
      const help = await run(['help', op.title]);
      expect(help.code).toBe(0);
      for (const field of op.inputs) {
        const bound = field.maxLength === undefined ? '' : `, at most ${field.maxLength} characters`;
        expect(help.stdout).toMatch(new RegExp(`--${flagOf(field)} <value> +${field.label}${bound}`));
      }
      expect(help.stdout).toContain(`Input fields: ${op.inputs.map((f) => f.name).join(', ')}`);
    }
  });

  it('finds an operation by id or title in its own, lower or upper case', async () => {
    for (const name of ['phone-lookup', 'Phone Lookup', 'phone lookup', 'PHONE_LOOKUP', 'phonelookup']) {
      const ran = await run([name, '--Phone', '555']);
      expect(ran.stderr).toMatch(/Phone must be 10 digits; got 3/);
      expect(ran.code).toBe(3);
    }
  });

  it('prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(CLI_DIR, 'package.json'), 'utf8'));
    for (const flag of ['--version', '-V']) {
      const ran = await run([flag]);
      expect(ran).toMatchObject({ code: 0, stdout: `${version}\n` });
    }
  });

  it('without an operation, shows the help as a usage error', async () => {
    const ran = await run([]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('phone-lookup|phone_lookup');
    expect(ran.stderr).not.toMatch(/\|[A-Z][a-z]+ /);
  });
});
