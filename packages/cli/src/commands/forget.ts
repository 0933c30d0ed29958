// `enrich forget`: a person (--Phone, --Email, a name and address, or --in people.csv) removed from
// every store of this user, and refused from then on (issue 38; what is done where: @enrich/bulk's
// forget-person.ts). `--undo` takes a mistake of today back out of the suppression lists; `--log`
// prints the record of requests. Free and offline (but for the shared store): nothing is sent to
// the service.
import {
  type ForgetReport,
  forgetEverywhere,
  forgetLogPath,
  LOG_KEPT_MONTHS,
  type LogEntry,
  readForgetLog,
  STORE_ENV,
  type StoreReport,
  sharedTarget,
  suppressionPath,
  undoForget,
} from '@enrich/bulk';
import { IDENTITY_KIND_WORDS, type Identity, type IdentityKind } from '@enrich/core';
import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { userDataFolder } from '../privacy.js';
import { storeUrl } from '../shared-store.js';
import { grouped, jsonText, printable } from '../terminal-text.js';
import { addPersonFlags, collect, localStoresOf, personOf } from './person-flags.js';

export interface PrivacyIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

interface ForgetFlags {
  readonly in?: string;
  readonly undo?: boolean;
  readonly log?: boolean;
  readonly json?: boolean;
  readonly store?: string | true;
  readonly cache?: readonly string[];
}

export function addForgetCommand(program: Command, io: PrivacyIo, done: (code: ExitCode) => void): Command {
  const cmd = program
    .command('forget')
    .description(
      'Forget a person at their request: remove every kept answer that holds them from every store of yours, and refuse their requests from now on. Nothing is sent to the service',
    );
  const given = addPersonFlags(cmd);
  cmd
    .option(
      '--undo',
      'take a mistake of today back out of the suppression lists (answers removed stay removed)',
    )
    .option('--log', `print the record of forget requests (no personal data; kept ${LOG_KEPT_MONTHS} months)`)
    .option('--json', 'print the report as JSON')
    .option('--store [url]', `the shared answer store too: its URL, or ${STORE_ENV}'s (used when set)`)
    .option('--cache <file>', 'an answer cache to forget in besides those found (repeatable)', collect)
    .addHelpText(
      'after',
      `
Every store of yours: each answer cache a run or call wrote (listed in your data folder), the cache
folder's (the MCP server's), the shared store with --store or ${STORE_ENV}. Your own input and
output files are yours: they are not changed.

Examples:
  enrich forget --Phone "(555) 010-2030"
  enrich forget --Email jane.doe@example.com --FName Jane --LName Doe --Address1 "12 Main St"
  enrich forget --in people.csv
  enrich forget --undo --Phone 5550102030      only the same day (UTC)
  enrich forget --log
`,
    )
    .action(async (flags: ForgetFlags) => done(await forgetAction(flags, given(), io)));
  return cmd;
}

async function forgetAction(
  flags: ForgetFlags,
  given: Record<string, string>,
  io: PrivacyIo,
): Promise<ExitCode> {
  if (flags.log) return printLog(io, flags.json === true);
  const identities = await personOf(given, flags.in, io.cwd);
  const targets = {
    ...localStoresOf(io.env, io.cwd, flags.cache),
    shared: sharedTarget(storeUrl(flags, io.env)),
  };
  if (flags.undo) {
    const undone = await undoForget(targets, identities);
    if (flags.json) io.stdout.write(`${jsonText(undone)}\n`);
    else {
      io.stdout.write(
        `Undone: ${undone.undone} suppression ${undone.undone === 1 ? 'entry' : 'entries'} taken out. The answers removed stay removed (asked again, they are bought again).\n`,
      );
      for (const old of undone.tooOld) {
        io.stdout.write(
          `${article(IDENTITY_KIND_WORDS[old.kind])} forgotten on ${old.on} stays forgotten: --undo is only for a mistake made the same day (UTC).\n`,
        );
      }
      for (const store of undone.stores)
        if (store.failed)
          io.stderr.write(`${printable(store.store)}: NOT DONE: ${printable(store.failed)}\n`);
    }
    if (undone.stores.some((s) => s.failed)) return EXIT.storage;
    return undone.undone === 0 && undone.tooOld.length > 0 ? EXIT.usage : EXIT.ok;
  }
  const report = await forgetEverywhere(targets, identities);
  io.stdout.write(
    flags.json
      ? `${jsonText(report)}\n`
      : `${forgetText(report, identities, userDataFolder(io.env), targets.shared !== undefined)}\n`,
  );
  return report.complete ? EXIT.ok : EXIT.storage;
}

/** "A phone", "An e-mail". */
function article(word: string): string {
  return `${/^[aeiou]/.test(word) ? 'An' : 'A'} ${word}`;
}

function kindsText(identities: readonly Identity[]): string {
  const counts = new Map<IdentityKind, number>();
  for (const { kind } of identities) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return [...counts]
    .map(([kind, n]) => `${grouped(n)} ${IDENTITY_KIND_WORDS[kind]}${n === 1 ? '' : 's'}`)
    .join(', ');
}

function storeLine(store: StoreReport, width: number): string {
  const name = printable(store.store).padEnd(width);
  if (store.failed) return `  ${name}  NOT DONE: ${printable(store.failed)}`;
  if (store.missing) return `  ${name}  not found (moved or deleted): nothing to remove`;
  return `  ${name}  ${grouped(store.removed)} answer${store.removed === 1 ? '' : 's'} removed`;
}

function forgetText(
  report: ForgetReport,
  identities: readonly Identity[],
  dataDir: string,
  shared: boolean,
): string {
  const width = Math.max(0, ...report.stores.map((s) => printable(s.store).length));
  const lines = [
    `Forgotten on ${report.on} (UTC): ${kindsText(identities)}.`,
    `Suppression list ${suppressionPath(dataDir)}: ${report.suppressed.local} added (salted hashes, no clear text)${shared ? `; the shared store's: ${report.suppressed.shared ?? 'NOT DONE'} added` : ''}.`,
    '',
    'Removed, per store:',
    ...(report.stores.length === 0
      ? ['  (no store of yours holds answers yet)']
      : report.stores.map((s) => storeLine(s, width))),
    '',
    'From now on their requests are refused before anything is sent, in every client that reads these lists.',
    'Your own input and output files were not changed: delete or edit them yourself if they hold the person.',
  ];
  if (!report.complete)
    lines.push(
      '',
      'Some stores were NOT DONE (above): run the same command again once they are free or reachable.',
    );
  lines.push(`Recorded (no personal data) in ${forgetLogPath(dataDir)}: enrich forget --log.`);
  return lines.join('\n');
}

function printLog(io: PrivacyIo, json: boolean): ExitCode {
  const dataDir = userDataFolder(io.env);
  const entries = readForgetLog(dataDir);
  if (json) {
    io.stdout.write(`${jsonText({ log: forgetLogPath(dataDir), entries })}\n`);
    return EXIT.ok;
  }
  if (entries.length === 0) {
    io.stdout.write(`No forget request recorded (${forgetLogPath(dataDir)}).\n`);
    return EXIT.ok;
  }
  const lines = [
    `Forget requests (${forgetLogPath(dataDir)}; kept ${LOG_KEPT_MONTHS} months, no personal data):`,
    '',
  ];
  for (const entry of entries) lines.push(logLine(entry));
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}

function logLine(entry: LogEntry): string {
  const kinds = Object.entries(entry.kinds)
    .map(([kind, n]) => `${n} ${IDENTITY_KIND_WORDS[kind as IdentityKind]}`)
    .join(', ');
  const removed = entry.stores.reduce((sum, s) => sum + s.removed, 0);
  const failed = entry.stores.filter((s) => s.failed).length;
  const head = `${entry.at}  ${entry.action.padEnd(6)}  ${kinds || '-'}; suppression ${entry.action === 'undo' ? '-' : '+'}${entry.suppression}; ${removed} answers removed${failed ? `; ${failed} store(s) NOT DONE` : ''}`;
  const stores = entry.stores.map(
    (s) =>
      `    ${printable(s.store)}: ${s.failed ? `NOT DONE (${printable(s.failed)})` : s.missing ? 'not found' : `${s.removed} removed`}`,
  );
  return [head, ...stores].join('\n');
}
