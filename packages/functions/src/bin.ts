#!/usr/bin/env node
// Entry of the built server (dist/enrich-functions.mjs): read the configuration, refuse to start
// without a key or a way to authenticate callers, open the answer store (creating or migrating its
// schema), listen, and say `listening on http://HOST:PORT`. SIGTERM (Cloud Run's stop) and Ctrl-C
// let the batches in progress finish for a few seconds, write what they bought, then exit.
import { type Config, HELP, parseConfig } from './config.js';
import { startFunctions } from './start.js';
import { functionsVersion } from './version.js';

const parsed = parseConfig(process.argv.slice(2), process.env);
if (parsed.kind === 'help') process.stdout.write(HELP);
else if (parsed.kind === 'version') process.stdout.write(`${functionsVersion()}\n`);
else if (parsed.kind === 'usage') {
  process.stderr.write(
    `enrich-functions: ${parsed.message}\n\nRun enrich-functions --help for the options.\n`,
  );
  process.exitCode = 2;
} else await serve(parsed.config);

async function serve(config: Config): Promise<void> {
  const started = await startFunctions(config, process.env);
  if (started.kind === 'failed') {
    process.exitCode = started.exitCode;
    return;
  }
  let stopping = false;
  const stop = (code: number) => {
    if (stopping) process.exit(code);
    stopping = true;
    void started.stop().then(() => process.exit(code));
  };
  process.on('SIGTERM', () => stop(0));
  process.on('SIGINT', () => stop(130));
}
