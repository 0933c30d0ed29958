// stdout carries the JSON-RPC messages and nothing else: every log line goes to stderr, through
// core's key scrubber (the key, also JSON-escaped or URL-encoded, becomes "[key hidden]"), and the
// console's methods are pointed there too, so that no library can write on stdout by accident.
import { format } from 'node:util';
import { createScrubber } from '@enrich/core';

export interface Logger {
  readonly scrub: (text: string) => string;
  readonly log: (text: string) => void;
}

export function createLogger(
  secrets: readonly (string | undefined)[],
  stderr: NodeJS.WritableStream = process.stderr,
): Logger {
  const scrub = createScrubber(secrets.filter((s): s is string => typeof s === 'string' && s !== ''));
  const log = (text: string) => {
    stderr.write(`${scrub(`enrich-mcp: ${text}`)}\n`);
  };
  return { scrub, log };
}

/** Sends console.log/info/debug/warn/error to the logger (stderr, scrubbed). */
export function consoleToLog(log: (text: string) => void): void {
  for (const method of ['log', 'info', 'debug', 'warn', 'error', 'trace'] as const) {
    console[method] = (...args: unknown[]) => log(format(...args));
  }
}
