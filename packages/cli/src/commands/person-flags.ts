// The person of `enrich forget` and `enrich held`: the fields as flags (--Phone, --Email, a name with
// --Address1; any case and spelling, as an operation's flags), or --in with a file of people, one a
// row. What makes a person (and what is refused) is core's identitiesOf; a file is read by the
// engine's readPeople.

import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { BulkError, cacheFolder, type LocalStores, readPeople } from '@enrich/bulk';
import { type Identity, type InputField, identitiesOf, OPERATIONS } from '@enrich/core';
import type { Command } from 'commander';
import { CommandError, EXIT } from '../exit-codes.js';
import { userDataFolder } from '../privacy.js';
import { FieldOption } from './field-option.js';

const PERSON_FIELDS = ['Phone', 'Email', 'FullName', 'FName', 'LName', 'Address1', 'Zip', 'City', 'State'];

/** The catalog's fields of a person, once each (the first operation's spelling and bound). */
function personFields(): InputField[] {
  const found = new Map<string, InputField>();
  for (const op of OPERATIONS) {
    for (const field of op.inputs)
      if (PERSON_FIELDS.includes(field.name) && !found.has(field.name)) found.set(field.name, field);
  }
  return PERSON_FIELDS.flatMap((name) => found.get(name) ?? []);
}

/** Adds the person's flags to a command; returns a reader of their values. */
export function addPersonFlags(cmd: Command): () => Record<string, string> {
  const options = personFields().map((field) => new FieldOption(field));
  for (const option of options) cmd.addOption(option);
  cmd.option(
    '--in <file>',
    'a file of people, one a row (CSV, workbook, JSON Lines): columns Phone, Email, FullName or FName and LName, Address1',
  );
  return () => {
    const given: Record<string, string> = {};
    for (const option of options) {
      const value = cmd.getOptionValue(option.attributeName()) as string | undefined;
      if (value !== undefined) given[option.field.name] = value;
    }
    return given;
  };
}

/** The identities named by the flags or the file; a usage error (nothing done) when they name no one. */
export async function personOf(
  given: Record<string, string>,
  inFlag: string | undefined,
  cwd: string,
): Promise<readonly Identity[]> {
  if (inFlag !== undefined) {
    if (Object.keys(given).length > 0) {
      throw new CommandError(
        `give either a person's fields (${Object.keys(given).join(', ')}) or --in, not both`,
        EXIT.usage,
      );
    }
    try {
      const read = await readPeople(resolve(cwd, inFlag));
      if (read.identities.length === 0)
        throw new CommandError(`${inFlag} holds no person. Nothing was done.`, EXIT.usage);
      return read.identities;
    } catch (error) {
      if (error instanceof BulkError) throw new CommandError(error.message, EXIT.invalidInput);
      throw error;
    }
  }
  const read = identitiesOf(given);
  if (!read.ok) throw new CommandError(`${read.message}. Nothing was done.`, EXIT.invalidInput);
  return read.identities;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The user's local stores: the registry's journals, the cache folder's, and those named by --cache. */
export function localStoresOf(env: Env, cwd: string, caches: readonly string[] = []): LocalStores {
  return {
    dataDir: userDataFolder(env),
    cacheDir: cacheFolder(env, process.platform, homedir()),
    extra: caches.map((path) => resolve(cwd, path)),
  };
}

/** `--cache <file>` given several times. */
export const collect = (value: string, previous: readonly string[] = []) => [...previous, value];
