// The `enrich` program: a subcommand per operation of the catalog, check-key and spend. Commander
// parses, dispatches, prints help and the version; each action sets the exit code through `done`.
import { OPERATIONS, type Operation, PERMITTED_USE } from '@enrich/core';
import { Command } from 'commander';
import { CommandError, EXIT, type ExitCode } from '../exit-codes.js';
import type { Scrub } from '../scrub-io.js';
import { cliVersion } from '../version.js';
import { type BulkIo, bulkAction } from './bulk.js';
import { addCacheCommand } from './cache.js';
import { addCheckKeyCommand } from './check-key.js';
import { FieldOption } from './field-option.js';
import { addForgetCommand } from './forget.js';
import { addHeldCommand } from './held.js';
import { oneOffAction } from './one-off.js';
import { addOperationCommand, type OperationFlags } from './operation.js';
import { addSpendCommand } from './spend.js';

export function buildProgram(io: BulkIo, scrub: Scrub, done: (code: ExitCode) => void): Command {
  const program = new Command('enrich')
    .description(
      'Contact-data enrichment from the command line: one call, or every row of a file (CSV, Excel, JSON Lines; resumable).',
    )
    .version(cliVersion())
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .addHelpText(
      'after',
      `
Examples:
  enrich phone-lookup --Phone 5550102030            one call, printed as a table (--json for JSON)
  enrich phone-lookup --in leads.csv --out out.csv  enrich every row of a file (resumable)
  enrich phone-lookup --in leads.csv --dry-run      what a run would spend; sends nothing
  enrich phone-lookup --help                        the operation's fields and every option
  enrich spend --by day --since 2026-11             what was spent, per day, service and operation (UTC)
  enrich forget --Phone 5550102030                  forget a person everywhere, at their request
  enrich held --Email jane.doe@example.com          what your stores keep on a person

Key: ENRICH_API_KEY, or a prompt. Service: --base-url/--base-url-v3 or ENRICH_BASE_URL/ENRICH_BASE_URL_V3.
Try it without a key: add --sandbox to use the embedded sandbox.

${PERMITTED_USE}
`,
    );
  for (const op of OPERATIONS) {
    addOperationCommand(program, op, async (op, flags, input, command) => {
      done(await operationAction(op, flags, input, command, io, scrub));
    });
  }
  addCheckKeyCommand(program, io, done);
  addSpendCommand(program, io, done);
  // A person's right to be forgotten and to know what is held (issue 38); how long answers are kept.
  addForgetCommand(program, io, done);
  addHeldCommand(program, io, done);
  addCacheCommand(program, io, done);
  return program;
}

/** Field values make one call; --in makes a bulk run; neither is a usage error. */
function operationAction(
  op: Operation,
  flags: OperationFlags,
  input: Readonly<Record<string, string>>,
  command: Command,
  io: BulkIo,
  scrub: Scrub,
): Promise<ExitCode> {
  const extras = flags.fields?.extras ?? [];
  if (extras.length > 0) {
    const one = extras.length === 1;
    io.stderr.write(
      `Note: ${extras.join(', ')} ${one ? 'is' : 'are'} not in the API description of ${op.title}; filled from answers that carry ${one ? 'it' : 'them'} (empty otherwise).\n`,
    );
  }
  const given = Object.keys(input);
  if (flags.in !== undefined) {
    if (given.length > 0)
      throw new CommandError(`give either field values (${given.join(', ')}) or --in, not both`, EXIT.usage);
    return bulkAction(op, flags, flags.in, io, scrub);
  }
  if (given.length === 0) {
    const flagList = command.options.flatMap((o) => (o instanceof FieldOption ? [o.long] : [])).join(', ');
    io.stderr.write(`enrich: give the input as flags (${flagList}) or a file with --in.\n`);
    command.outputHelp({ error: true });
    return Promise.resolve(EXIT.usage);
  }
  return oneOffAction(op, flags, input, io, scrub);
}
