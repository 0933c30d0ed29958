// What a run or a call of the command owes the people in the data (issue 38), decided before
// anything is sent: the suppression lists it checks (the user's, in the data folder, and the shared
// store's with --store / ENRICH_STORE), the retention (answers older are not used: the shorter of it
// and --max-age), and the journal's place in the registry that forget, held and prune read (with
// its daily compaction). A dry run registers and compacts nothing: it writes nothing.
import { homedir } from 'node:os';
import {
  BulkError,
  dataFolder,
  keepCache,
  loadSuppression,
  type Refuse,
  readSharedSuppression,
  retentionMs,
  StoreUnavailable,
  storeUrlKind,
} from '@enrich/bulk';
import { anyRefusal, type SuppressionCheck } from '@enrich/core';
import { CommandError, EXIT } from './exit-codes.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The user's data folder: ENRICH_DATA_DIR, else the platform's (the spend ledger's folder). */
export function userDataFolder(env: Env): string {
  return dataFolder(env, process.platform, homedir());
}

/** The shorter of a max age and the user's retention (answers older are never used). */
export function retainedMaxAge(env: Env, maxAgeMs: number): number {
  try {
    return Math.min(maxAgeMs, retentionMs(userDataFolder(env)));
  } catch (error) {
    if (error instanceof BulkError) throw new CommandError(error.message, EXIT.usage);
    throw error;
  }
}

export interface RunPrivacy {
  /** Requests of forgotten people are refused with this; undefined when no list holds anyone. */
  readonly refuse: Refuse | undefined;
  /** The max age the run may use: the shorter of --max-age and the retention. */
  readonly maxAgeMs: number;
  /** What the user should know (the registry could not be written). */
  readonly note?: string | undefined;
}

export interface PrivacyFor {
  readonly maxAgeMs: number;
  /** The journal the run writes; undefined for a dry run, or a call without --cache. */
  readonly journal?: string | undefined;
  /** The shared store's URL, if the run has one. */
  readonly storeUrl?: string | undefined;
}

export async function runPrivacy(env: Env, options: PrivacyFor): Promise<RunPrivacy> {
  const dataDir = userDataFolder(env);
  try {
    const lists: SuppressionCheck[] = [loadSuppression(dataDir)];
    if (options.storeUrl !== undefined) lists.push(await sharedList(options.storeUrl));
    const kept = options.journal === undefined ? undefined : await keepCache(dataDir, options.journal);
    const retention = kept?.retentionMs ?? retentionMs(dataDir);
    const someone = lists.some((list) => list.size > 0);
    return {
      refuse: someone ? (op, input) => anyRefusal(lists, op, input) : undefined,
      maxAgeMs: Math.min(options.maxAgeMs, retention),
      note: kept?.problem,
    };
  } catch (error) {
    if (error instanceof BulkError) throw new CommandError(error.message, EXIT.usage);
    throw error;
  }
}

async function sharedList(url: string): Promise<SuppressionCheck> {
  try {
    storeUrlKind(url);
  } catch (error) {
    // A URL that is not a store's: the command's usage error, in the words shared-store.ts gives it.
    if (error instanceof RangeError) throw new CommandError(error.message, EXIT.usage);
    throw error;
  }
  try {
    return await readSharedSuppression(url);
  } catch (error) {
    if (error instanceof StoreUnavailable) {
      throw new CommandError(
        `the shared answer store's suppression list could not be read: ${error.message}. Nothing was sent.`,
        EXIT.storage,
      );
    }
    throw error;
  }
}
