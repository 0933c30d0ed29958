// The `enrich` command line (commands/program.ts defines it): runs it on `argv` and returns the exit
// code; every error becomes its exit code here, and only here. Everything printed is stripped of control characters and escape sequences and passes
// through the key scrubber (scrub-io.ts).
import { BulkError, OutputInTheWay } from '@enrich/bulk';
import { API_KEY_ENV } from '@enrich/core';
import { CommanderError } from 'commander';
import { flushed, isBrokenPipe, watchPipe } from './broken-pipe.js';
import type { BulkIo } from './commands/bulk.js';
import { buildProgram } from './commands/program.js';
import { CommandError, EXIT } from './exit-codes.js';
import { keyScrubber, type Scrub, terminalStream } from './scrub-io.js';
import { storeSecrets } from './shared-store.js';

export { CACHE_FILE } from '@enrich/bulk';

export type Io = BulkIo;

export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    handleSignals: true,
  };
}

export async function main(argv: readonly string[], given: Io = processIo()): Promise<number> {
  // A key typed at the prompt is added to the scrubber when it is typed.
  const scrub = keyScrubber([given.env[API_KEY_ENV]]);
  // A reader that goes away (`| head -1`) ends the command with 141, not a crash (broken-pipe.ts).
  const pipesOut = [watchPipe(given.stdout), watchPipe(given.stderr)];
  const code = await run(argv, given, scrub);
  await flushed(given.stdout);
  return pipesOut.some((watch) => watch.broken) ? EXIT.brokenPipe : code;
}

async function run(argv: readonly string[], given: Io, scrub: Scrub): Promise<number> {
  // The shared store's password (--store, ENRICH_STORE) is hidden too, from the first line printed:
  // on the terminal only, never in the user's data (shared-store.ts).
  const hidden = keyScrubber(storeSecrets(argv, given.env));
  const shown = (text: string) => hidden(scrub(text));
  const io: Io = {
    ...given,
    stdout: terminalStream(given.stdout, shown),
    stderr: terminalStream(given.stderr, shown),
    onSecret: (secret) => scrub.add(secret),
  };
  let exitCode: number = EXIT.ok;
  try {
    await buildProgram(io, scrub, (code) => {
      exitCode = code;
    }).parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version asked for end with 0; help shown because no operation was named, an
      // unknown operation or option, or a missing value, with a usage error.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof CommandError) {
      io.stderr.write(`enrich: ${error.message}\n`);
      return error.exitCode;
    }
    // What stops the engine before anything is sent (a file, a lock, a mapping) is the user's to
    // mend: a usage error.
    if (error instanceof BulkError) {
      const advice =
        error instanceof OutputInTheWay ? ' Add --force to replace it, or name another file with --out.' : '';
      io.stderr.write(`enrich: ${error.message}${advice}\n`);
      return EXIT.usage;
    }
    // Written to a reader that has gone: not a bug, and main() gives its exit code.
    if (isBrokenPipe(error)) return EXIT.brokenPipe;
    io.stderr.write(`enrich: unexpected error: ${error instanceof Error ? error.stack : String(error)}\n`);
    return EXIT.internal;
  }
}
