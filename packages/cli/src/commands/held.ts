// `enrich held`: what every store of this user keeps on a person, and when it was bought (issue 38:
// the person's right to know). Reads only: nothing is sent, nothing written, no lock taken.
import { type HeldAnswer, heldEverywhere, STORE_ENV, sharedTarget, suppressedEntries } from '@enrich/bulk';
import {
  describeIdentity,
  findOperation,
  flattenRecord,
  IDENTITY_KIND_WORDS,
  type Outcome,
  outputColumns,
} from '@enrich/core';
import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { userDataFolder } from '../privacy.js';
import { storeUrl } from '../shared-store.js';
import { jsonText, printable } from '../terminal-text.js';
import type { PrivacyIo } from './forget.js';
import { addPersonFlags, collect, localStoresOf, personOf } from './person-flags.js';

interface HeldFlags {
  readonly in?: string;
  readonly json?: boolean;
  readonly store?: string | true;
  readonly cache?: readonly string[];
}

export function addHeldCommand(program: Command, io: PrivacyIo, done: (code: ExitCode) => void): Command {
  const cmd = program
    .command('held')
    .description(
      'What every store of yours keeps on a person, and when it was bought (their right to know). Reads only; nothing is sent',
    );
  const given = addPersonFlags(cmd);
  cmd
    .option('--json', 'print every answer held, whole, as JSON')
    .option('--store [url]', `the shared answer store too: its URL, or ${STORE_ENV}'s (used when set)`)
    .option('--cache <file>', 'an answer cache to read besides those found (repeatable)', collect)
    .action(async (flags: HeldFlags) => done(await heldAction(flags, given(), io)));
  return cmd;
}

async function heldAction(flags: HeldFlags, given: Record<string, string>, io: PrivacyIo): Promise<ExitCode> {
  const identities = await personOf(given, flags.in, io.cwd);
  const targets = {
    ...localStoresOf(io.env, io.cwd, flags.cache),
    shared: sharedTarget(storeUrl(flags, io.env)),
  };
  const { held, stores } = await heldEverywhere(targets, identities);
  const suppressed = suppressedEntries(userDataFolder(io.env), identities);
  if (flags.json) {
    const answers = held.map((h) => ({ ...h, at: new Date(h.at).toISOString() }));
    io.stdout.write(`${jsonText({ answers, suppressed, failed: stores.filter((s) => s.failed) })}\n`);
  } else {
    const lines = [`Held on ${identities.map(describeIdentity).join('; ')}:`];
    if (held.length === 0) lines.push('  no kept answer in any store of yours.');
    const byStore = new Map<string, HeldAnswer[]>();
    for (const h of held) byStore.set(h.store, [...(byStore.get(h.store) ?? []), h]);
    for (const [store, answers] of byStore) {
      lines.push('', `${printable(store)}: ${answers.length} answer${answers.length === 1 ? '' : 's'}`);
      for (const answer of answers) lines.push(...answerLines(answer));
    }
    for (const store of stores)
      if (store.failed)
        lines.push('', `${printable(store.store)}: could not be read: ${printable(store.failed)}`);
    for (const entry of suppressed)
      lines.push(
        '',
        `On your suppression list since ${entry.on} (${IDENTITY_KIND_WORDS[entry.kind]}): requests are refused.`,
      );
    io.stdout.write(`${lines.join('\n')}\n`);
  }
  return stores.some((s) => s.failed) ? EXIT.storage : EXIT.ok;
}

function answerLines(answer: HeldAnswer): string[] {
  const opId = answer.key.slice(0, answer.key.indexOf(':'));
  const op = findOperation(opId);
  const bought = new Date(answer.at).toISOString();
  const head = `  ${op?.title ?? opId}, bought ${bought} from ${printable(answer.namespace)}; asked: ${printable(requestOf(answer.key))}`;
  return [head, `    ${printable(outcomeText(opId, answer.outcome))}`];
}

function requestOf(key: string): string {
  try {
    const pairs = JSON.parse(key.slice(key.indexOf(':') + 1)) as [string, string][];
    return pairs.map(([name, value]) => `${name} ${value}`).join(', ');
  } catch {
    return key;
  }
}

function outcomeText(opId: string, outcome: Outcome): string {
  const op = findOperation(opId);
  switch (outcome.kind) {
    case 'record': {
      if (!op) return outcome.raw;
      const columns = outputColumns(op);
      const values = flattenRecord(op, outcome.record, columns);
      const shown = columns.flatMap((c, i) =>
        values[i] === null || values[i] === undefined || values[i] === '' ? [] : [`${c} ${values[i]}`],
      );
      const extra = Object.entries(outcome.extra).map(([name, value]) => `${name} ${value}`);
      return [...shown, ...extra].join(', ');
    }
    case 'no-match':
      return 'no match (nothing was found)';
    case 'unreadable':
      return `paid, unreadable (${outcome.reason}): ${outcome.raw.slice(0, 200)}`;
    case 'error':
      return `error: ${outcome.error.message}`;
  }
}
