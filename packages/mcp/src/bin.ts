#!/usr/bin/env node
// Entry of the built server (dist/enrich-mcp.mjs): read the configuration, connect (or start the
// embedded sandbox), and serve MCP over stdio until the client closes the pipe.
import { describePostgresUrl, storeUrlSecrets } from '@enrich/bulk';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { type Config, HELP, parseConfig } from './config.js';
import { ConfigError, type Connection, connect } from './connection.js';
import { consoleToLog, createLogger } from './log.js';
import { createServer } from './server.js';
import { mcpVersion } from './version.js';

const env = process.env;

/** The longest an exit may take once asked for (the work in progress is cut well before). */
const STOP_DEADLINE_MS = 1800;
const parsed = parseConfig(process.argv.slice(2), env);
if (parsed.kind === 'help') {
  process.stdout.write(HELP);
} else if (parsed.kind === 'version') {
  process.stdout.write(`${mcpVersion()}\n`);
} else if (parsed.kind === 'usage') {
  process.stderr.write(`enrich-mcp: ${parsed.message}\n${HELP}`);
  process.exitCode = 2;
} else {
  await serve(parsed.config);
}

async function serve(config: Config): Promise<void> {
  // The shared store's password is hidden from the logs and results too (never from files: log.ts).
  const storeSecrets = config.storeUrl === undefined ? [] : storeUrlSecrets(config.storeUrl);
  const { scrub, shown, log } = createLogger([env.ENRICH_API_KEY], process.stderr, storeSecrets);
  consoleToLog(log);
  process.on('uncaughtException', (error) => {
    log(`unexpected error: ${error.stack ?? String(error)}`);
    process.exit(1);
  });
  process.on('unhandledRejection', (reason) => log(`unexpected rejection: ${String(reason)}`));
  let connection: Connection;
  try {
    connection = await connect(config, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    log(error.message);
    process.exit(2);
  }
  const { server, stop } = createServer({ config: config, connection, scrub, shown, log });
  const transport = new StdioServerTransport();
  let closing = false;
  // The client closed the pipe, or Ctrl-C / SIGTERM: waits end, requests in flight are cut, paid
  // answers are kept (set aside when the cache is busy), then the process exits, within 2 s. A
  // second signal ends it at once.
  const close = async (code: number) => {
    if (closing) {
      process.exit(code);
    }
    closing = true;
    setTimeout(() => {
      log('stopping took too long; exiting.');
      process.exit(code);
    }, STOP_DEADLINE_MS).unref();
    await stop();
    await connection.close();
    process.exit(code);
  };
  transport.onclose = () => void close(0);
  process.stdin.on('end', () => void close(0));
  process.on('SIGTERM', () => void close(143));
  process.on('SIGINT', () => void close(130));
  await server.connect(transport);
  log(
    `ready (${connection.bases.sandbox ? 'the embedded sandbox, demo key' : `${connection.bases.baseUrl}, ${connection.bases.baseUrlV3}`}; answer cache ${config.cachePath}${
      config.storeUrl === undefined ? '' : `; shared answer store ${describePostgresUrl(config.storeUrl)}`
    }${
      config.maxTransactions === undefined ? '' : `; budget ${config.maxTransactions}`
    }${connection.keyProblem ? `; ${connection.keyProblem}` : ''})`,
  );
}
