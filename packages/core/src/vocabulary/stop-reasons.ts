// The `enrich` command's exit codes, one per class of failure so that scripts can tell them apart,
// and why a bulk run stops sending, with the exit code and the words the run's report uses. The
// CLI README's table is the user-facing copy of EXIT_CODES.

export const EXIT_CODES = {
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
  /**
   * The reader of standard output went away before all of it was written (`enrich ... | head -1`):
   * 128 + SIGPIPE, what a shell reports for a program its reader left.
   */
  brokenPipe: 141,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

export type StopReason = 'budget' | 'auth' | 'allowance' | 'service' | 'storage' | 'input' | 'interrupted';

export interface StopInfo {
  readonly exitCode: ExitCode;
  /** Why the run stopped sending, as the report's "stopped sending: ..." line says it. */
  readonly text: string;
}

export const STOP_REASONS: Readonly<Record<StopReason, StopInfo>> = {
  budget: { exitCode: EXIT_CODES.budget, text: 'the --max-transactions budget is spent' },
  auth: { exitCode: EXIT_CODES.auth, text: 'the API key was refused (401)' },
  allowance: {
    exitCode: EXIT_CODES.allowance,
    text: 'the transaction allowance is used up, or the service asked for a long wait (429)',
  },
  service: { exitCode: EXIT_CODES.service, text: 'the service kept failing' },
  storage: { exitCode: EXIT_CODES.storage, text: 'a file could not be written' },
  input: { exitCode: EXIT_CODES.usage, text: 'the input file could not be read to its end' },
  interrupted: { exitCode: EXIT_CODES.interrupted, text: 'the run was interrupted' },
};
