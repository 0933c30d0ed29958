// `enrich check-key`: is the key accepted, by each base in use, without spending anything?
//
// Core's checkKey sends each base (v2 and v3 live on separate hosts) a request the service must
// refuse as incomplete: an empty body to a cheap operation. 401 means the key was refused, 400 that
// it was accepted (the service got as far as the parameters). This relies on the service checking
// the key before the parameters; anything else (a redirect, 404, a 200, a network error) is
// reported as it came, and means the check could not tell.
import { checkKey, type KeyCheckResult } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { Command, CommanderError } from 'commander';
import { type ConnectIo, connect } from './connection.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { parseWhole } from './options.js';
import { printable } from './terminal-text.js';

export interface CheckKeyIo extends ConnectIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

const LABEL: Record<KeyCheckResult['verdict'], string> = {
  accepted: 'key accepted',
  refused: 'KEY REFUSED',
  unexpected: 'could not tell',
  unreachable: 'unreachable',
};

export async function runCheckKey(args: readonly string[], io: CheckKeyIo): Promise<ExitCode> {
  const cmd = new Command('enrich check-key')
    .description(
      'Check the API key against each base in use, free: an empty request each (400 = accepted, 401 = refused)',
    )
    .option('--base-url <url>', 'base of the v2 operations (or ENRICH_BASE_URL)')
    .option('--base-url-v3 <url>', 'base of the v3 operations (or ENRICH_BASE_URL_V3)')
    .option('--sandbox', 'check against the embedded sandbox')
    .option('--timeout <seconds>', 'give up on one check after this long', '30')
    .option('--json', 'print the results as JSON')
    .exitOverride()
    .configureOutput({ writeOut: (t) => io.stdout.write(t), writeErr: (t) => io.stderr.write(t) });
  try {
    await cmd.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError)
      return error.code.startsWith('commander.help') ? EXIT.ok : EXIT.usage;
    throw error;
  }
  const o = cmd.opts<{
    baseUrl?: string;
    baseUrlV3?: string;
    sandbox?: boolean;
    timeout: string;
    json?: boolean;
  }>();
  const timeoutMs = parseWhole(o.timeout, '--timeout', 1, 3600) * 1000;
  const connection = await connect(
    { sandbox: o.sandbox === true, baseUrl: o.baseUrl, baseUrlV3: o.baseUrlV3 },
    io,
  );
  try {
    const report = await checkKey(connection.settings, createFetchTransport({ timeoutMs }));
    if (!report.ok) {
      io.stderr.write(`${report.message}\nNothing was sent.\n`);
      return EXIT.auth;
    }
    if (o.json) io.stdout.write(`${JSON.stringify(report.results)}\n`);
    else {
      for (const r of report.results)
        io.stdout.write(`${printable(r.base)}: ${LABEL[r.verdict]}. ${printable(r.detail)}\n`);
    }
    return exitCodeOf(report.results);
  } finally {
    await connection.close();
  }
}

function exitCodeOf(results: readonly KeyCheckResult[]): ExitCode {
  if (results.some((r) => r.verdict === 'refused')) return EXIT.auth;
  if (results.some((r) => r.verdict !== 'accepted')) return EXIT.service;
  return EXIT.ok;
}
