// The small pure pieces of the command: field flags, option values, numbers as the terminal shows them.

import { getOperation, type Operation } from '@enrich/core';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { flagOf } from '../src/commands/field-option.js';
import { addOperationCommand } from '../src/commands/operation.js';
import { parseDuration, parseMap, parseRate } from '../src/options.js';
import { grouped } from '../src/terminal-text.js';

/** The field values an operation's command reads from these arguments, as the real command parses them. */
async function fieldValues(op: Operation, args: readonly string[]): Promise<Record<string, string>> {
  let seen: Record<string, string> = {};
  const program = new Command('enrich').exitOverride();
  addOperationCommand(program, op, async (_op, _flags, input) => {
    seen = { ...input };
  });
  await program.parseAsync([op.id, ...args], { from: 'user' });
  return seen;
}

describe('field flags', () => {
  it('accepts any case and punctuation of a field name, and common aliases', async () => {
    const lookup = getOperation('phone-lookup');
    expect(await fieldValues(lookup, ['--phone', '1'])).toEqual({ Phone: '1' });
    expect(await fieldValues(lookup, ['--PHONE=2'])).toEqual({ Phone: '2' });
    // Given several times, the last one counts.
    expect(await fieldValues(lookup, ['--phone', '1', '--PHONE=2', '--Phone', '3'])).toEqual({ Phone: '3' });
    const tcpa = getOperation('tcpa-verify');
    expect(tcpa.inputs.map(flagOf)).toEqual(['phone', 'last-name']);
    for (const flag of ['--last_name', '--LastName', '--last-name'])
      expect(await fieldValues(tcpa, ['--Phone', '1', flag, 'x'])).toEqual({ phone: '1', last_name: 'x' });
    const append = getOperation('phone-append');
    expect(await fieldValues(append, ['--first-name', 'A', '--lname', 'B', '--zip-code', '1'])).toEqual({
      FName: 'A',
      LName: 'B',
      Zip: '1',
    });
  });

  it('leaves the command options, and everything after --, alone', async () => {
    const lookup = getOperation('phone-lookup');
    const program = new Command('enrich').exitOverride();
    let operands: readonly string[] = [];
    const cmd = addOperationCommand(program, lookup, async (_op, flags, input) => {
      expect(flags).toMatchObject({ in: 'a.csv', json: true });
      expect(input).toEqual({});
      operands = cmd.args;
    });
    cmd.allowExcessArguments();
    await program.parseAsync(['phone-lookup', '--in', 'a.csv', '--json', '--', '--phone'], { from: 'user' });
    expect(operands).toEqual(['--phone']);
  });

  it('parses option values with their own parsers, naming the flag when one is wrong', async () => {
    const lookup = getOperation('phone-lookup');
    let parsed: unknown;
    const program = new Command('enrich').exitOverride();
    addOperationCommand(program, lookup, async (_op, flags) => {
      parsed = flags;
    });
    await program.parseAsync(
      ['phone-lookup', '--timeout', '5', '--max-age', '12h', '--map', 'Phone=Mobile'],
      {
        from: 'user',
      },
    );
    expect(parsed).toMatchObject({
      timeout: 5000,
      maxAge: 12 * 3_600_000,
      map: { Phone: 'Mobile' },
      concurrency: 'auto',
      maxConcurrency: 64,
    });
    await expect(
      program.parseAsync(['phone-lookup', '--concurrency', 'many'], { from: 'user' }),
    ).rejects.toThrow(/--concurrency takes a whole number from 1 to 256 or auto; got "many"/);
    await program.parseAsync(['phone-lookup', '--concurrency', '12', '--max-rate', '600/m'], {
      from: 'user',
    });
    expect(parsed).toMatchObject({ concurrency: 12, maxRate: 10 });
  });
});

describe('option values', () => {
  it('reads durations', () => {
    expect(parseDuration('30d', '--max-age')).toBe(30 * 86_400_000);
    expect(parseDuration('12h', '--max-age')).toBe(12 * 3_600_000);
    expect(parseDuration('90', '--max-age')).toBe(90_000);
    expect(parseDuration('forever', '--max-age')).toBe(Number.POSITIVE_INFINITY);
    expect(() => parseDuration('soon', '--max-age')).toThrow(/duration/);
  });

  it('reads rates per second or per minute', () => {
    expect(parseRate('10')).toBe(10);
    expect(parseRate('10/s')).toBe(10);
    expect(parseRate('600/m')).toBe(10);
    expect(() => parseRate('0/s')).toThrow(/--max-rate takes/);
    expect(() => parseRate('fast')).toThrow(/--max-rate takes/);
  });

  it('reads --map pairs, keeping spaces and = in column names', () => {
    expect(parseMap(['Phone=Mobile #', 'Zip=a=b'])).toEqual({ Phone: 'Mobile #', Zip: 'a=b' });
    expect(() => parseMap(['Phone'])).toThrow(/Field=Column/);
  });
});

describe('grouped', () => {
  it('writes whole numbers as en-US does, thousands separated by commas', () => {
    const values = [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, -1234, -999, Number.MAX_SAFE_INTEGER];
    for (let i = 1; i < 1e15; i *= 7) values.push(i, i - 1);
    for (const value of values) expect(grouped(value)).toBe(value.toLocaleString('en-US'));
  });
});
