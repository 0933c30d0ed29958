// `enrich cache prune` and `enrich cache retention`: how long answers are kept (issue 38). One
// setting for every store of the user (1 to 365 days, 30 by default: @enrich/bulk's retention.ts);
// prune removes older answers now from every store (runs also do, once a day per cache).
import {
  MAX_RETENTION_DAYS,
  MIN_RETENTION_DAYS,
  pruneEverywhere,
  retentionDays,
  STORE_ENV,
  setRetentionDays,
  sharedTarget,
} from '@enrich/bulk';
import { type Command, InvalidArgumentError } from 'commander';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { userDataFolder } from '../privacy.js';
import { storeUrl } from '../shared-store.js';
import { grouped, jsonText, printable } from '../terminal-text.js';
import type { PrivacyIo } from './forget.js';
import { collect, localStoresOf } from './person-flags.js';

interface PruneFlags {
  readonly json?: boolean;
  readonly store?: string | true;
  readonly cache?: readonly string[];
}

export function addCacheCommand(program: Command, io: PrivacyIo, done: (code: ExitCode) => void): Command {
  const cache = program
    .command('cache')
    .description('How long answers are kept in your stores (retention), and pruning them');
  cache
    .command('prune')
    .description('Remove answers older than the retention from every store of yours now. Nothing is sent')
    .option('--json', 'print the report as JSON')
    .option('--store [url]', `the shared answer store too: its URL, or ${STORE_ENV}'s (used when set)`)
    .option('--cache <file>', 'an answer cache to prune besides those found (repeatable)', collect)
    .action(async (flags: PruneFlags) => done(await pruneAction(flags, io)));
  cache
    .command('retention')
    .description(
      `Print how long answers are kept, or set it: ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS} days (30d by default)`,
    )
    .argument('[days]', 'the new retention: 90 or 90d', parseDays)
    .action((days: number | undefined) => done(retentionAction(days, io)));
  return cache;
}

function parseDays(text: string): number {
  const match = /^\s*(\d+)\s*d?\s*$/i.exec(text);
  if (!match)
    throw new InvalidArgumentError(
      `give a number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}, such as 30 or 90d`,
    );
  return Number(match[1]);
}

function retentionAction(days: number | undefined, io: PrivacyIo): ExitCode {
  const dataDir = userDataFolder(io.env);
  if (days === undefined) {
    io.stdout.write(
      `Answers are kept ${retentionDays(dataDir)} days in every store of yours (enrich cache retention <days> changes it).\n`,
    );
    return EXIT.ok;
  }
  setRetentionDays(dataDir, days);
  io.stdout.write(
    `Answers are now kept ${days} days in every store of yours: older ones are not used, and are removed by enrich cache prune and by the next run on each cache.\n`,
  );
  return EXIT.ok;
}

async function pruneAction(flags: PruneFlags, io: PrivacyIo): Promise<ExitCode> {
  const targets = {
    ...localStoresOf(io.env, io.cwd, flags.cache),
    shared: sharedTarget(storeUrl(flags, io.env)),
  };
  const pruned = await pruneEverywhere(targets);
  if (flags.json) io.stdout.write(`${jsonText(pruned)}\n`);
  else {
    const width = Math.max(0, ...pruned.stores.map((s) => printable(s.store).length));
    const lines = [`Answers older than ${pruned.days} days removed, per store:`];
    for (const s of pruned.stores) {
      const name = printable(s.store).padEnd(width);
      lines.push(
        `  ${name}  ${s.failed ? `NOT DONE: ${printable(s.failed)}` : s.missing ? 'not found (moved or deleted)' : `${grouped(s.removed)} removed`}`,
      );
    }
    if (pruned.stores.length === 0) lines.push('  (no store of yours holds answers yet)');
    io.stdout.write(`${lines.join('\n')}\n`);
  }
  return pruned.stores.some((s) => s.failed) ? EXIT.storage : EXIT.ok;
}
