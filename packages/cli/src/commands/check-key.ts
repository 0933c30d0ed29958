// `enrich check-key`: is the key accepted, by each base in use, without spending anything?
//
// Core's checkKey sends each base (v2 and v3 live on separate hosts) a request the service must
// refuse as incomplete: an empty body to a cheap operation. 401 means the key was refused, 400 that
// it was accepted (the service got as far as the parameters). This relies on the service checking
// the key before the parameters; anything else (a redirect, 404, a 200, a network error) is
// reported as it came, and means the check could not tell. A service that does not check the key
// first may bill the check (a 200, 204 or 440 to the empty request): that is recorded in the spend
// ledger like any paid answer.
import type { Bases } from '@enrich/bulk';
import {
  checkKey,
  isPaid,
  type KeyCheckResult,
  OPERATIONS,
  readResponse,
  type Transport,
} from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { type Command, Option } from 'commander';
import { type ConnectIo, connect, endpoints } from '../connection.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { parseWhole } from '../options.js';
import { recordSpend } from '../spend-ledger.js';
import { jsonText, printable } from '../terminal-text.js';

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

interface CheckKeyFlags {
  readonly baseUrl?: string;
  readonly baseUrlV3?: string;
  readonly sandbox?: boolean;
  readonly timeout: number;
  readonly json?: boolean;
}

/** Adds `enrich check-key` to `program`; `done` receives the exit code. */
export function addCheckKeyCommand(
  program: Command,
  io: CheckKeyIo,
  done: (code: ExitCode) => void,
): Command {
  return program
    .command('check-key')
    .description(
      'Check the API key against each base in use, free: an empty request each (400 = accepted, 401 = refused)',
    )
    .option('--base-url <url>', 'base of the v2 operations (or ENRICH_BASE_URL)')
    .option('--base-url-v3 <url>', 'base of the v3 operations (or ENRICH_BASE_URL_V3)')
    .option('--sandbox', 'check against the embedded sandbox')
    .addOption(
      new Option('--timeout <seconds>', 'give up on one check after this long')
        .argParser((text) => parseWhole(text, '--timeout', 1, 3600) * 1000)
        .default(30_000, '30'),
    )
    .option('--json', 'print the results as JSON')
    .action(async (flags: CheckKeyFlags) => done(await checkKeyAction(flags, io)));
}

async function checkKeyAction(o: CheckKeyFlags, io: CheckKeyIo): Promise<ExitCode> {
  const connection = await connect(o, io);
  try {
    const transport = createFetchTransport({ timeoutMs: o.timeout });
    const report = await checkKey(connection.settings, recordingPaid(transport, io, endpoints(o, io.env)));
    if (!report.ok) {
      io.stderr.write(`${report.message}\nNothing was sent.\n`);
      return EXIT.auth;
    }
    if (o.json) io.stdout.write(`${jsonText(report.results)}\n`);
    else {
      for (const r of report.results)
        io.stdout.write(`${printable(r.base)}: ${LABEL[r.verdict]}. ${printable(r.detail)}\n`);
    }
    return exitCodeOf(report.results);
  } finally {
    await connection.close();
  }
}

/** The transport, recording in the spend ledger each answer that core's isPaid says was billed. */
function recordingPaid(transport: Transport, io: CheckKeyIo, bases: Bases): Transport {
  return async (request) => {
    const response = await transport(request);
    const op = OPERATIONS.find((o) => request.url.endsWith(o.path));
    if (op && isPaid(readResponse(op, response))) recordSpend(io, op, bases);
    return response;
  };
}

function exitCodeOf(results: readonly KeyCheckResult[]): ExitCode {
  if (results.some((r) => r.verdict === 'refused')) return EXIT.auth;
  if (results.some((r) => r.verdict !== 'accepted')) return EXIT.service;
  return EXIT.ok;
}
