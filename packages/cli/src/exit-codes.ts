// The command's exit codes, one per class of failure, so that scripts can tell them apart.
// The README's table is the user-facing copy of this list.
import type { ErrorCode } from '@enrich/core';

export const EXIT = {
  ok: 0,
  /** A bug: an exception nobody expected. */
  internal: 1,
  /** Bad flags, an unknown operation, an unreadable file, a CSV whose columns cannot feed the operation. */
  usage: 2,
  /** The input broke a rule of the API (caught locally, or a 400 from the service). */
  invalidInput: 3,
  /** No API key, a bad base URL, or a key the service refused (401). */
  auth: 4,
  /** The key's transaction allowance is used up (429, after waiting as Retry-After asked). */
  allowance: 5,
  /** Nothing matched (204), or too many records matched (440). */
  noMatch: 6,
  /** The service failed (5xx), could not be reached, or answered something unreadable. */
  service: 7,
  /** A bulk run stopped at its --max-transactions budget. */
  budget: 8,
  /**
   * A file could not be written (disk full, say): the run stopped; the answers that arrived were
   * journaled, or saved elsewhere, or listed as lost (the summary says which).
   */
  storage: 9,
  /** Ctrl-C or SIGTERM. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export function exitCodeFor(code: ErrorCode): ExitCode {
  switch (code) {
    case 'invalid-input':
    case 'bad-request':
      return EXIT.invalidInput;
    case 'config':
    case 'unauthorized':
      return EXIT.auth;
    case 'allowance':
      return EXIT.allowance;
    case 'too-many-results':
      return EXIT.noMatch;
    case 'server':
    case 'redirect':
    case 'network':
    case 'unexpected-status':
    case 'bad-response':
      return EXIT.service;
  }
}

/** Thrown for problems that stop the command before it does anything; main() prints and exits. */
export class CommandError extends Error {
  readonly exitCode: ExitCode;
  constructor(message: string, exitCode: ExitCode) {
    super(message);
    this.name = 'CommandError';
    this.exitCode = exitCode;
  }
}
