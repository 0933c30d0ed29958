// The shared answer store (--store <url> / ENRICH_STORE): a PostgreSQL database that a team's
// clients share (the CLI, the MCP server, the warehouse functions), so that a person is bought once
// whichever client asked first. @enrich/bulk's openStore opens it; here, what the command makes of
// it: which URL, the cap, the errors in the command's words, and the password kept off the terminal.
import {
  MAX_PER_MONTH_ENV,
  openStore,
  parseMonthlyCap,
  STORE_ENV,
  type StoreFront,
  StoreUnavailable,
  storeUrlKind,
  storeUrlSecrets,
} from '@enrich/bulk';
import { CommandError, EXIT } from './exit-codes.js';

export interface StoreFlags {
  /** --store <url> (true: `--store` alone, the URL of ENRICH_STORE). */
  readonly store?: string | true;
  readonly maxTransactionsPerMonth?: number;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The store's URL: --store, else ENRICH_STORE; undefined (the local journal only) when neither is
 * set. A URL that is not a PostgreSQL one is refused here, before anything uses it (exit 2).
 */
export function storeUrl(flags: StoreFlags, env: Env): string | undefined {
  const given = flags.store === true || flags.store === undefined ? env[STORE_ENV] : flags.store;
  if (given === undefined || given.trim() === '') {
    if (flags.store === true) {
      throw new CommandError(`--store without a URL reads ${STORE_ENV}, which is not set`, EXIT.usage);
    }
    return undefined;
  }
  try {
    storeUrlKind(given);
  } catch (error) {
    throw new CommandError((error as Error).message, EXIT.usage);
  }
  return given;
}

/**
 * The secrets a store URL holds (its password, as typed and decoded), from --store in the arguments
 * and from ENRICH_STORE: hidden from everything the command prints from the start, before a flag
 * is parsed (the terminal only: the password is never written to a file, and hiding a short one in
 * the user's data could change a phone number).
 */
export function storeSecrets(argv: readonly string[], env: Env): string[] {
  const urls = [env[STORE_ENV]];
  argv.forEach((arg, i) => {
    if (arg === '--store') urls.push(argv[i + 1]);
    else if (arg.startsWith('--store=')) urls.push(arg.slice('--store='.length));
  });
  return urls.flatMap((url) => (url ? storeUrlSecrets(url) : []));
}

export interface OpenOptions {
  readonly namespace: string;
  readonly maxAgeMs: number;
  readonly maxTransactionsPerMonth?: number | undefined;
}

/** Opens the store for one namespace; a URL that is not a store's, or a store out of reach, stops the command. */
export async function openSharedStore(url: string, options: OpenOptions): Promise<StoreFront> {
  try {
    return await openStore(url, {
      namespace: options.namespace,
      maxAgeMs: options.maxAgeMs,
      ...(options.maxTransactionsPerMonth === undefined
        ? {}
        : { maxTransactionsPerMonth: options.maxTransactionsPerMonth }),
      // Never used: a URL names PostgreSQL or is refused (the local journal is the command's own).
      journal: { path: '' },
    });
  } catch (error) {
    if (error instanceof RangeError) throw new CommandError(error.message, EXIT.usage);
    if (error instanceof StoreUnavailable) {
      throw new CommandError(
        `the shared answer store could not be opened: ${error.message}. Nothing was sent.`,
        EXIT.storage,
      );
    }
    throw error;
  }
}

/** --max-transactions-per-month, else ENRICH_MAX_TRANSACTIONS_PER_MONTH; refused without a store. */
export function monthlyCap(flags: StoreFlags, env: Env, url: string | undefined): number | undefined {
  let cap = flags.maxTransactionsPerMonth;
  if (cap === undefined) {
    try {
      cap = parseMonthlyCap(env[MAX_PER_MONTH_ENV]);
    } catch (error) {
      throw new CommandError((error as Error).message, EXIT.usage);
    }
  }
  if (cap !== undefined && url === undefined && flags.maxTransactionsPerMonth !== undefined) {
    throw new CommandError(
      `--max-transactions-per-month is the shared answer store's cap: give the store with --store or ${STORE_ENV} (--max-transactions caps one run)`,
      EXIT.usage,
    );
  }
  return url === undefined ? undefined : cap;
}

/**
 * Closes the store. Paid answers it could not keep (the database went away) are said on stderr;
 * `kept` says where they are all the same (a bulk run's answer cache), if anywhere.
 */
export async function closeStore(
  store: StoreFront | undefined,
  stderr: NodeJS.WritableStream,
  kept?: string,
): Promise<void> {
  try {
    await store?.close();
  } catch (error) {
    const where = kept ? ` They are in ${kept}.` : '';
    stderr.write(
      `enrich: ${(error as Error).message}: another client of the store may buy them again.${where}\n`,
    );
  }
}
