// stdout carries the JSON-RPC messages and nothing else: every log line goes to stderr, through
// core's key scrubber (the key, also JSON-escaped or URL-encoded, becomes "[key hidden]"), and the
// console's methods are pointed there too, so that no library can write on stdout by accident.
import { format } from 'node:util';
import { createScrubber } from '@enrich/core';

export interface Logger {
  /** Hides the key: applied to everything written or returned, files included. */
  readonly scrub: (text: string) => string;
  /** Hides the key and the shown-only secrets: for logs and tool results. */
  readonly shown: (text: string) => string;
  readonly log: (text: string) => void;
}

/**
 * `secrets` (the key) are hidden everywhere; `shownOnly` (the shared store's password) only in what
 * is shown, never in the user's data (a short password hidden in an output would change a phone).
 */
export function createLogger(
  secrets: readonly (string | undefined)[],
  stderr: NodeJS.WritableStream = process.stderr,
  shownOnly: readonly string[] = [],
): Logger {
  const scrub = createScrubber(secrets.filter((s): s is string => typeof s === 'string' && s !== ''));
  const hide = createScrubber(shownOnly.filter((s) => s !== ''));
  const shown = (text: string) => hide(scrub(text));
  const log = (text: string) => {
    stderr.write(`${shown(`enrich-mcp: ${text}`)}\n`);
  };
  return { scrub, shown, log };
}

/** Sends console.log/info/debug/warn/error to the logger (stderr, scrubbed). */
export function consoleToLog(log: (text: string) => void): void {
  for (const method of ['log', 'info', 'debug', 'warn', 'error', 'trace'] as const) {
    console[method] = (...args: unknown[]) => log(format(...args));
  }
}
