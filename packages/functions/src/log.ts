// The server's log: one line per batch (the protocol, the operation, counts, the status, the time
// and the engine's ids), per refusal and per event of the server, each through core's scrubber (the
// key and the token, in any spelling, become "[key hidden]"). Never a row's data: no input, no
// answer, no BigQuery sessionUser; the callers' messages quoted in a line are ours. On Cloud Run
// (K_SERVICE set) each line is a JSON object with a severity, as Cloud Logging reads it; elsewhere
// plain text. Lines go to stdout; warnings and errors to stderr.
import { format } from 'node:util';
import { createScrubber } from '@enrich/core';

export type Severity = 'INFO' | 'WARNING' | 'ERROR';

export interface Logger {
  readonly scrub: (text: string) => string;
  readonly log: (text: string, severity?: Severity) => void;
}

export function createLogger(
  secrets: readonly (string | undefined)[],
  options: {
    readonly json?: boolean;
    readonly stdout?: NodeJS.WritableStream;
    readonly stderr?: NodeJS.WritableStream;
  } = {},
): Logger {
  const scrub = createScrubber(secrets.filter((s): s is string => typeof s === 'string' && s !== ''));
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const log = (text: string, severity: Severity = 'INFO') => {
    const message = scrub(text);
    const line = options.json
      ? JSON.stringify({ severity, message, component: 'enrich-functions' })
      : `enrich-functions: ${severity === 'INFO' ? '' : `${severity.toLowerCase()}: `}${message}`;
    (severity === 'INFO' ? stdout : stderr).write(`${line}\n`);
  };
  return { scrub, log };
}

/** Sends console.log and friends to the logger, so that no library writes around the scrubber. */
export function consoleToLog(log: Logger['log']): void {
  for (const method of ['log', 'info', 'debug'] as const) console[method] = (...args) => log(format(...args));
  for (const method of ['warn', 'error', 'trace'] as const)
    console[method] = (...args) => log(format(...args), 'WARNING');
}
