// Starting and stopping the server, apart from the process's own business (bin.ts) so that a
// benchmark can start it in-process: the connection (the key, or the embedded sandbox), the answer
// store's fronts, the pace, the ledger, the purchase path, the HTTP server, the shared store's prune
// on a schedule (pruning.ts); then, on stop, the batches in progress get a grace to finish and keep
// what they bought before everything closes.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpTransport, type Refuse, retentionMs } from '@enrich/bulk';
import { createAuthenticator } from './auth.js';
import type { Config } from './config.js';
import { ConfigError, type Connection, connect } from './connection.js';
import { createFunctionsServer } from './functions-server.js';
import { consoleToLog, createLogger, type Logger } from './log.js';
import { Pacer } from './pacer.js';
import { StorePruning } from './pruning.js';
import { Purchases } from './purchases.js';
import { FunctionsLedger } from './spend-ledger.js';
import { Stores } from './stores.js';
import { Suppression } from './suppression.js';
import { functionsVersion } from './version.js';

/** One attempt's deadline, as the CLI's default --timeout. */
const TIMEOUT_MS = 30_000;
/** How long batches in progress may go on once asked to stop (Cloud Run allows 10 s after SIGTERM). */
export const STOP_GRACE_MS = 8_000;

export type Started =
  | { readonly kind: 'started'; readonly url: string; readonly stop: () => Promise<void> }
  | { readonly kind: 'failed'; readonly exitCode: number };

/** The password of a store URL, for the scrubber (never shown). */
function storePassword(url: string | undefined): string | undefined {
  if (url === undefined || !URL.canParse(url)) return undefined;
  const password = new URL(url).password;
  return password === '' ? undefined : decodeURIComponent(password);
}

/** The parts of a running server that a stop closes. */
interface Parts {
  readonly server: Server;
  readonly pacer: Pacer;
  readonly ledger: FunctionsLedger;
  readonly stores: Stores;
  readonly connection: Connection;
  readonly stopping: AbortController;
  readonly pruning?: StorePruning | undefined;
}

export async function startFunctions(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
  logger?: Logger,
): Promise<Started> {
  const token = config.auth.kind === 'token' ? config.auth.token : undefined;
  const { scrub, log } =
    logger ??
    createLogger([env.ENRICH_API_KEY, token, storePassword(config.storeUrl)], {
      json: Boolean(env.K_SERVICE),
    });
  if (!logger) consoleToLog(log);
  let connection: Connection;
  try {
    connection = await connect(config, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    log(error.message, 'ERROR');
    return { kind: 'failed', exitCode: 2 };
  }
  let maxAgeMs: number;
  try {
    // Answers older than the retention are never used, as in every client.
    maxAgeMs = Math.min(config.maxAgeMs, retentionMs(config.dataDir));
  } catch (error) {
    log((error as Error).message, 'ERROR');
    await connection.close();
    return { kind: 'failed', exitCode: 2 };
  }
  let stores: Stores;
  try {
    stores = await Stores.open({ ...config, maxAgeMs, bases: connection.bases, scrub });
  } catch (error) {
    log(`the answer store could not be opened: ${(error as Error).message}`, 'ERROR');
    await connection.close();
    return { kind: 'failed', exitCode: error instanceof RangeError ? 2 : 1 };
  }
  const assembled = assemble(config, connection, stores, log);
  try {
    await new Promise<void>((resolve, reject) => {
      assembled.server.once('error', reject);
      assembled.server.listen(config.port, config.host, () => resolve());
    });
  } catch (error) {
    log(`cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`, 'ERROR');
    await Promise.allSettled([stores.close(), connection.close()]);
    return { kind: 'failed', exitCode: 1 };
  }
  const { port } = assembled.server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  log(`listening on ${url}`);
  log(describe(config, connection, stores));
  const parts = { ...assembled, pruning: startPruning(config, stores, log) };
  return { kind: 'started', url, stop: () => stop(parts) };
}

/** The shared store's prune on a schedule, with a store and an interval (not `--prune-every off`). */
function startPruning(config: Config, stores: Stores, log: Logger['log']): StorePruning | undefined {
  if (config.storeUrl === undefined || config.pruneEveryMs === undefined) return undefined;
  const pruning = new StorePruning({
    storeUrl: config.storeUrl,
    everyMs: config.pruneEveryMs,
    dataDir: config.dataDir,
    where: stores.where,
    log,
  });
  pruning.start();
  return pruning;
}

/** The people forgotten (issue 38): the shared store's list and the service user's. */
function suppressionOf(config: Config): () => Promise<Refuse | undefined> {
  const suppression = new Suppression(config.storeUrl);
  return () => suppression.refuse();
}

/** The pace, the ledger, the purchase path and the HTTP server, over an open connection and store. */
function assemble(config: Config, connection: Connection, stores: Stores, log: Logger['log']): Parts {
  const stopping = new AbortController();
  const pacer = new Pacer({
    settings: connection.settings,
    transport: createHttpTransport({ timeoutMs: TIMEOUT_MS }),
    maxConcurrency: config.maxConcurrency,
    maxRate: config.maxRate,
  });
  const ledger = new FunctionsLedger(config.ledgerPath, connection.bases, log);
  const purchases = new Purchases({
    stores,
    pacer,
    ledger,
    log,
    stop: stopping.signal,
    refuse: suppressionOf(config),
  });
  const server = createFunctionsServer({
    purchases,
    authenticate: createAuthenticator(config.auth),
    log,
    version: functionsVersion(),
  });
  return { server, pacer, ledger, stores, connection, stopping };
}

/** What the server started with, in one line: no key, no token, no password. */
function describe(config: Config, connection: Connection, stores: Stores): string {
  const { bases } = connection;
  const service = bases.sandbox ? 'the embedded sandbox, demo key' : `${bases.baseUrl}, ${bases.baseUrlV3}`;
  const callers =
    config.auth.kind === 'token'
      ? 'a token'
      : config.auth.kind === 'platform'
        ? 'checked by the platform (--auth platform)'
        : 'not checked (--no-auth, loopback)';
  const cap =
    config.maxTransactionsPerMonth === undefined
      ? ''
      : `; at most ${config.maxTransactionsPerMonth} transactions a month`;
  const prune =
    config.storeUrl === undefined
      ? ''
      : config.pruneEveryMs === undefined
        ? '; not pruned (--prune-every off)'
        : `; answers older than the retention pruned every ${config.pruneEveryMs / 60_000} min`;
  return `${functionsVersion()}: ${service}; answers in ${stores.where}${prune}; callers: ${callers}${cap}`;
}

// No new batch is taken; those in progress get STOP_GRACE_MS to finish and keep what they bought;
// then waits end, requests in flight are cut, and the ledger, the store and the sandbox close.
async function stop({ server, pacer, ledger, stores, connection, stopping, pruning }: Parts): Promise<void> {
  server.close();
  const pruned = pruning?.stop();
  // A connection kept alive after its batch is answered is closed as soon as it is idle.
  const idle = setInterval(() => server.closeIdleConnections(), 100);
  const grace = setTimeout(() => {
    stopping.abort();
    pacer.stop();
    server.closeAllConnections();
  }, STOP_GRACE_MS);
  await new Promise<void>((resolve) => server.once('close', () => resolve()));
  clearTimeout(grace);
  clearInterval(idle);
  stopping.abort();
  pacer.stop();
  ledger.close();
  await pruned;
  await Promise.allSettled([stores.close(), connection.close()]);
}
