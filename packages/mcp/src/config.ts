// The server's configuration: flags, then environment variables, then defaults. Configured as the
// CLI is (ENRICH_API_KEY, ENRICH_BASE_URL, ENRICH_BASE_URL_V3, --sandbox), plus what is the
// server's own: the answer cache's folder, the budget and the confirmation threshold.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  CACHE_DIR_ENV,
  cacheFolder,
  DEFAULT_MAX_AGE_MS,
  dataFolder,
  ledgerPath,
  MAX_PER_MONTH_ENV,
  PACE_FILE,
  parseMonthlyCap,
  STORE_ENV,
  storeUrlKind,
} from '@enrich/bulk';
import { API_KEY_ENV, BASE_URL_ENV, BASE_URL_V3_ENV } from '@enrich/core';

export const ENV = {
  apiKey: API_KEY_ENV,
  baseUrl: BASE_URL_ENV,
  baseUrlV3: BASE_URL_V3_ENV,
  cacheDir: CACHE_DIR_ENV,
  maxTransactions: 'ENRICH_MAX_TRANSACTIONS',
  confirmAbove: 'ENRICH_CONFIRM_ABOVE',
  store: STORE_ENV,
  maxPerMonth: MAX_PER_MONTH_ENV,
} as const;

/** The answer cache's file inside its folder: the CLI's journal format (`enrich ... --cache <it>`). */
export const CACHE_FILE_NAME = 'answers.jsonl';

/** Paid calls this process makes without asking the person (where the client can be asked). */
export const DEFAULT_CONFIRM_ABOVE = 10;

/** How long requests on the wire may still answer once the server stops (calls and file runs). */
export const STOP_GRACE_MS = 1000;

/** Cached answers are reused while this fresh (every client's default: the default retention). */
export const MAX_AGE_MS = DEFAULT_MAX_AGE_MS;

export interface Config {
  readonly sandbox: boolean;
  readonly baseUrl: string | undefined;
  readonly baseUrlV3: string | undefined;
  readonly cachePath: string;
  /** The pace of the last file run per service (the bulk engine's pace-memory.ts), beside the answer cache. */
  readonly pacePath: string;
  /** The spend ledger shared with the CLI: ENRICH_LEDGER, else the user's data folder. */
  readonly ledgerPath: string;
  /** The user's data folder (the suppression list, the retention): bulk's dataFolder. */
  readonly dataDir: string;
  /** Transactions this process may spend; undefined: no budget. */
  readonly maxTransactions: number | undefined;
  /** Paid calls made without an elicitation; beyond it, each asks (where the client can). */
  readonly confirmAbove: number;
  /** The folders the file tools may use when the client declares no roots (default: the working folder). */
  readonly allowDirs: readonly string[];
  /** The shared answer store's URL (--store / ENRICH_STORE), or undefined: the local cache only. */
  readonly storeUrl: string | undefined;
  /** The shared store's cap per UTC month, every client counted (--max-transactions-per-month). */
  readonly maxTransactionsPerMonth: number | undefined;
}

export type Parsed =
  | { readonly kind: 'run'; readonly config: Config }
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'usage'; readonly message: string };

export const HELP = `enrich-mcp: the enrichment API's operations as MCP tools, over stdio.

Usage: enrich-mcp [--sandbox] [--max-transactions N] [--confirm-above N] [--cache-dir DIR]
                  [--allow-dir DIR ...] [--store URL] [--max-transactions-per-month N]

  --sandbox               use the embedded sandbox on 127.0.0.1 with its demo key (no key, nothing billed)
  --max-transactions N    spend at most N transactions in this process (or ENRICH_MAX_TRANSACTIONS)
  --confirm-above N       ask the person before each paid call once N have been made (default ${DEFAULT_CONFIRM_ABOVE};
                          0 asks before every one; or ENRICH_CONFIRM_ABOVE), where the client supports it
  --cache-dir DIR         the answer cache's folder (or ENRICH_CACHE_DIR; default: the user's cache folder)
  --allow-dir DIR         a folder the file tools (quote, enrich_file) may read and write; repeat for
                          more. Used when the client declares no roots; default: the working folder
  --store URL             a shared answer store, postgres://user:password@host:5432/db (or ${STORE_ENV}):
                          the team's clients (enrich, other servers, the warehouse functions) buy
                          each person once, whoever asks first; the password is never printed
  --max-transactions-per-month N
                          with a store: its cap per UTC month, every client counted
                          (or ${MAX_PER_MONTH_ENV}); kept in the store, the lowest set wins
  --base-url URL          base of the v2 operations (or ENRICH_BASE_URL)
  --base-url-v3 URL       base of the v3 operations (or ENRICH_BASE_URL_V3)
  --help, --version

The key comes from ENRICH_API_KEY. Only JSON-RPC is written on stdout; logs go to stderr.
Paid calls are recorded in the spend ledger (ENRICH_LEDGER, else the user's data folder),
shared with the enrich command: \`enrich spend\` shows the totals.
`;

function whole(text: string, what: string): number | string {
  if (!/^[0-9]+$/.test(text.trim()))
    return `${what} must be a whole number of at least 0; got ${JSON.stringify(text)}`;
  return Number(text.trim());
}

export function parseConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Parsed {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        sandbox: { type: 'boolean' },
        'max-transactions': { type: 'string' },
        'confirm-above': { type: 'string' },
        'cache-dir': { type: 'string' },
        'base-url': { type: 'string' },
        'base-url-v3': { type: 'string' },
        'allow-dir': { type: 'string', multiple: true },
        store: { type: 'string' },
        'max-transactions-per-month': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return { kind: 'usage', message: (error as Error).message };
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  const budgetText = (values['max-transactions'] as string | undefined) ?? env[ENV.maxTransactions];
  const budget =
    budgetText === undefined || budgetText.trim() === ''
      ? undefined
      : whole(budgetText, `--max-transactions (${ENV.maxTransactions})`);
  if (typeof budget === 'string') return { kind: 'usage', message: budget };
  const confirmText = (values['confirm-above'] as string | undefined) ?? env[ENV.confirmAbove];
  const confirm =
    confirmText === undefined || confirmText.trim() === ''
      ? DEFAULT_CONFIRM_ABOVE
      : whole(confirmText, `--confirm-above (${ENV.confirmAbove})`);
  if (typeof confirm === 'string') return { kind: 'usage', message: confirm };
  const store = storeOf(values, env);
  if (typeof store === 'string') return { kind: 'usage', message: store };
  const cacheDir =
    (values['cache-dir'] as string | undefined) || cacheFolder(env, process.platform, homedir());
  return {
    kind: 'run',
    config: {
      sandbox: values.sandbox === true,
      baseUrl: (values['base-url'] as string | undefined) ?? env[ENV.baseUrl],
      baseUrlV3: (values['base-url-v3'] as string | undefined) ?? env[ENV.baseUrlV3],
      cachePath: join(cacheDir, CACHE_FILE_NAME),
      pacePath: join(cacheDir, PACE_FILE),
      ledgerPath: ledgerPath(env, process.platform, homedir()),
      dataDir: dataFolder(env, process.platform, homedir()),
      maxTransactions: budget,
      confirmAbove: confirm,
      allowDirs: ((values['allow-dir'] as string[] | undefined) ?? [process.cwd()]).map((dir) =>
        resolve(dir),
      ),
      ...store.config,
    },
  };
}

/** The shared store's URL and cap, or a usage problem (never repeating the URL: it may hold a password). */
function storeOf(
  values: Record<string, string | boolean | string[] | undefined>,
  env: Readonly<Record<string, string | undefined>>,
): { config: Pick<Config, 'storeUrl' | 'maxTransactionsPerMonth'> } | string {
  const given = (values.store as string | undefined) ?? env[ENV.store];
  const url = given === undefined || given.trim() === '' ? undefined : given;
  try {
    storeUrlKind(url);
  } catch (error) {
    return (error as Error).message;
  }
  const flag = values['max-transactions-per-month'] as string | undefined;
  let cap: number | undefined;
  try {
    cap =
      flag === undefined
        ? parseMonthlyCap(env[ENV.maxPerMonth])
        : parseMonthlyCap(flag, '--max-transactions-per-month');
  } catch (error) {
    return (error as Error).message;
  }
  if (cap !== undefined && url === undefined && values['max-transactions-per-month'] !== undefined) {
    return `--max-transactions-per-month is the shared answer store's cap: give the store with --store or ${ENV.store} (--max-transactions caps this server)`;
  }
  return { config: { storeUrl: url, maxTransactionsPerMonth: url === undefined ? undefined : cap } };
}
