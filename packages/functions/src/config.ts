// The server's configuration: flags, then environment variables, then defaults. Where requests go is
// configured as in the CLI (ENRICH_API_KEY, ENRICH_BASE_URL, ENRICH_BASE_URL_V3, --sandbox); the
// answer store as in every client (--store / ENRICH_STORE); the rest is the server's own: where it
// listens (--port / PORT, as Cloud Run sets it), how callers are authenticated, the monthly cap and
// the pace's caps. Nothing here holds the key or the token beyond reading them.
import { homedir } from 'node:os';
import { parseArgs } from 'node:util';
import {
  CACHE_DIR_ENV,
  cacheFolder,
  DEFAULT_MAX_AGE_MS,
  dataFolder,
  ledgerPath,
  MAX_PER_MONTH_ENV,
  parseMonthlyCap,
  STORE_ENV,
} from '@enrich/bulk';
import { API_KEY_ENV, BASE_URL_ENV, BASE_URL_V3_ENV, DEFAULT_MAX_CONCURRENCY } from '@enrich/core';
import { type AuthChoice, chooseAuth, TOKEN_ENV } from './auth.js';

export const ENV = {
  apiKey: API_KEY_ENV,
  baseUrl: BASE_URL_ENV,
  baseUrlV3: BASE_URL_V3_ENV,
  store: STORE_ENV,
  cacheDir: CACHE_DIR_ENV,
  token: TOKEN_ENV,
  port: 'PORT',
  maxPerMonth: MAX_PER_MONTH_ENV,
  pruneEvery: 'ENRICH_PRUNE_EVERY',
} as const;

export const DEFAULT_PORT = 8080;
/** How often an instance prunes the shared store (pruning.ts): an hour. */
const DEFAULT_PRUNE_EVERY_MS = 3_600_000;
const DAY_MS = 86_400_000;

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly sandbox: boolean;
  readonly baseUrl: string | undefined;
  readonly baseUrlV3: string | undefined;
  /** postgres://... (ENRICH_STORE); undefined: a journal file per service in the cache folder. */
  readonly storeUrl: string | undefined;
  /** The folder of the journal files when there is no store URL. */
  readonly cacheDir: string;
  readonly maxAgeMs: number;
  /** How often the shared store is pruned of answers older than the retention; undefined: never. */
  readonly pruneEveryMs: number | undefined;
  /** The service user's data folder: its suppression list and retention (ENRICH_DATA_DIR). */
  readonly dataDir: string;
  readonly maxTransactionsPerMonth: number | undefined;
  readonly auth: AuthChoice;
  /** The spend ledger shared with the CLI: ENRICH_LEDGER, else the user's data folder. */
  readonly ledgerPath: string;
  readonly maxConcurrency: number;
  /** Requests per second never exceeded by this instance, or undefined. */
  readonly maxRate: number | undefined;
}

export type Parsed =
  | { readonly kind: 'run'; readonly config: Config }
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'usage'; readonly message: string };

export const HELP = `enrich-functions: the enrichment API as HTTP functions for BigQuery, Snowflake and Databricks.

Usage: enrich-functions [--port N] [--host H] [--sandbox] [--store URL] [--auth platform | --no-auth]
                        [--max-transactions-per-month N] [--max-age DURATION] [--prune-every DURATION]
                        [--max-concurrency N] [--max-rate N/s]

  --port N                          port to listen on (or PORT; default ${DEFAULT_PORT}; 0 picks a free one)
  --host H                          address to listen on (default 0.0.0.0; with --no-auth, 127.0.0.1)
  --sandbox                         use the embedded sandbox on 127.0.0.1 with its demo key (nothing billed)
  --base-url URL                    base of the v2 operations (or ${ENV.baseUrl})
  --base-url-v3 URL                 base of the v3 operations (or ${ENV.baseUrlV3})
  --store URL                       the answer store every instance shares: postgres://user:pass@host/db
                                    (or ${ENV.store}); default: a journal file per service in the
                                    cache folder (${ENV.cacheDir}), for one process only
  --max-transactions-per-month N    store-wide cap per UTC month, across every instance (or ${ENV.maxPerMonth});
                                    kept in the store for every client of it, the lowest set wins
  --max-age DURATION                reuse kept answers this fresh: 30d, 12h, forever (default ${DEFAULT_MAX_AGE_MS / DAY_MS}d;
                                    never older than the retention: enrich cache retention)
  --prune-every DURATION            with --store: delete answers older than the retention from the store at
                                    start and this often, one instance at a time: 90m, 6h, off (or
                                    ${ENV.pruneEvery}; default ${DEFAULT_PRUNE_EVERY_MS / 60_000}m)
  --max-concurrency N               requests in flight at most, found by the pace below it (default ${DEFAULT_MAX_CONCURRENCY})
  --max-rate N/s                    requests per second at most from this instance (e.g. 10/s, 600/m)
  --auth platform                   trust the platform's check of callers (Cloud Run with IAM)
  --no-auth                         no check of callers: only on a loopback address
  --help, --version

Callers are authenticated with ${ENV.token} (as "Authorization: Bearer <token>" or Snowflake's
sf-custom-token header) unless --auth platform or --no-auth is given; without one of the three,
the server does not start. The key comes from ${ENV.apiKey}. Endpoints: POST /bigquery,
POST /snowflake (or /snowflake/<operation>), POST /rows, GET /healthz.
`;

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function duration(text: string, flag: string): number | string {
  const t = text.trim().toLowerCase();
  if (t === 'forever') return Number.POSITIVE_INFINITY;
  const match = /^(\d+)\s*([smhd])$/.exec(t);
  if (!match) return `${flag} takes a duration such as 30d, 12h, 90m or forever; got "${text}"`;
  return Number(match[1]) * (UNIT_MS[match[2] as string] ?? 1000);
}

function whole(text: string, what: string, min: number, max = Number.MAX_SAFE_INTEGER): number | string {
  const value = Number(text.trim());
  if (!/^[0-9]+$/.test(text.trim()) || value < min || value > max)
    return `${what} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}; got ${JSON.stringify(text)}`;
  return value;
}

/** The store's cap: the flag, else the variable, by bulk's one rule for it; a message naming the one given. */
function monthlyCap(flag: string | undefined, env: Readonly<Record<string, string | undefined>>) {
  try {
    return flag === undefined
      ? parseMonthlyCap(env[ENV.maxPerMonth])
      : parseMonthlyCap(flag, '--max-transactions-per-month');
  } catch (error) {
    return (error as Error).message;
  }
}

function rate(text: string): number | string {
  const match = /^(\d+(?:\.\d+)?)\s*(?:\/\s*(s|m))?$/.exec(text.trim().toLowerCase());
  const value = match ? Number(match[1]) : Number.NaN;
  if (!match || !(value > 0))
    return `--max-rate takes requests per second such as 10/s or 600/m; got "${text}"`;
  return match[2] === 'm' ? value / 60 : value;
}

/** `off`, or a duration of at least a second (not `forever`: that is `off`, said plainly). */
function pruneInterval(text: string): number | undefined | string {
  const problem = `--prune-every (${ENV.pruneEvery}) takes a duration such as 1h, 90m or 6h, or off; got "${text}"`;
  if (text.trim().toLowerCase() === 'off') return undefined;
  const ms = duration(text, '--prune-every');
  return typeof ms === 'string' || !Number.isFinite(ms) || ms < 1000 ? problem : ms;
}

type Values = Record<string, string | boolean | undefined>;

function readFlags(argv: readonly string[]): Values | string {
  try {
    return parseArgs({
      args: [...argv],
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        sandbox: { type: 'boolean' },
        'base-url': { type: 'string' },
        'base-url-v3': { type: 'string' },
        store: { type: 'string' },
        'max-transactions-per-month': { type: 'string' },
        'max-age': { type: 'string' },
        'prune-every': { type: 'string' },
        'max-concurrency': { type: 'string' },
        'max-rate': { type: 'string' },
        auth: { type: 'string' },
        'no-auth': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
      allowPositionals: false,
    }).values as Values;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The numbers of the configuration, each checked by its rule; a message naming the first that is not. */
function numbers(values: Values, env: Readonly<Record<string, string | undefined>>) {
  const text = (flag: string, variable?: string) => {
    const given = (values[flag] as string | undefined) ?? (variable ? env[variable] : undefined);
    return given === undefined || given.trim() === '' ? undefined : given;
  };
  const portText = text('port', ENV.port);
  const port = portText === undefined ? DEFAULT_PORT : whole(portText, `--port (${ENV.port})`, 0, 65535);
  const cap = monthlyCap(values['max-transactions-per-month'] as string | undefined, env);
  const ageText = text('max-age');
  const maxAge = ageText === undefined ? DEFAULT_MAX_AGE_MS : duration(ageText, '--max-age');
  const concurrencyText = text('max-concurrency');
  const maxConcurrency =
    concurrencyText === undefined
      ? DEFAULT_MAX_CONCURRENCY
      : whole(concurrencyText, '--max-concurrency', 1, 1024);
  const rateText = text('max-rate');
  const maxRate = rateText === undefined ? undefined : rate(rateText);
  const pruneText = text('prune-every', ENV.pruneEvery);
  const pruneEvery = pruneText === undefined ? DEFAULT_PRUNE_EVERY_MS : pruneInterval(pruneText);
  for (const value of [port, cap, maxAge, maxConcurrency, maxRate, pruneEvery])
    if (typeof value === 'string') return value;
  return {
    port: port as number,
    cap: cap as number | undefined,
    maxAge: maxAge as number,
    pruneEvery: pruneEvery as number | undefined,
    maxConcurrency: maxConcurrency as number,
    maxRate: maxRate as number | undefined,
  };
}

export function parseConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Parsed {
  const values = readFlags(argv);
  if (typeof values === 'string') return { kind: 'usage', message: values };
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  const n = numbers(values, env);
  if (typeof n === 'string') return { kind: 'usage', message: n };
  const auth = chooseAuth({
    auth: values.auth as string | undefined,
    noAuth: values['no-auth'] === true,
    host: values.host as string | undefined,
    token: env[ENV.token],
  });
  if (auth.kind === 'refused') return { kind: 'usage', message: auth.message };
  const storeText = (values.store as string | undefined) ?? env[ENV.store];
  return {
    kind: 'run',
    config: {
      host: auth.host,
      port: n.port,
      sandbox: values.sandbox === true,
      baseUrl: (values['base-url'] as string | undefined) ?? env[ENV.baseUrl],
      baseUrlV3: (values['base-url-v3'] as string | undefined) ?? env[ENV.baseUrlV3],
      storeUrl: storeText === undefined || storeText.trim() === '' ? undefined : storeText.trim(),
      cacheDir: cacheFolder(env, process.platform, homedir()),
      maxAgeMs: n.maxAge,
      pruneEveryMs: n.pruneEvery,
      dataDir: dataFolder(env, process.platform, homedir()),
      maxTransactionsPerMonth: n.cap,
      auth: auth.choice,
      ledgerPath: ledgerPath(env, process.platform, homedir()),
      maxConcurrency: n.maxConcurrency,
      maxRate: n.maxRate,
    },
  };
}
