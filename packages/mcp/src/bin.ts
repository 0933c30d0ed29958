#!/usr/bin/env node
// Entry of the built server (dist/enrich-mcp.mjs): read the configuration, connect (or start the
// embedded sandbox), and serve MCP over stdio until the client closes the pipe.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { type Config, HELP, parseConfig } from './config.js';
import { ConfigError, type Connection, connect } from './connection.js';
import { consoleToLog, createLogger } from './log.js';
import { createServer } from './server.js';
import { mcpVersion } from './version.js';

const env = process.env;
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
  const { scrub, log } = createLogger([env.ENRICH_API_KEY]);
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
  const { server, idle } = createServer({ config: config, connection, scrub, log });
  const transport = new StdioServerTransport();
  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    await idle();
    await connection.close();
    process.exit(0);
  };
  transport.onclose = () => void close();
  process.stdin.on('end', () => void close());
  process.on('SIGTERM', () => void close());
  process.on('SIGINT', () => void close());
  await server.connect(transport);
  log(
    `ready (${connection.bases.sandbox ? 'the embedded sandbox, demo key' : `${connection.bases.baseUrl}, ${connection.bases.baseUrlV3}`}; answer cache ${config.cachePath}${
      config.maxTransactions === undefined ? '' : `; budget ${config.maxTransactions}`
    }${connection.keyProblem ? `; ${connection.keyProblem}` : ''})`,
  );
}
