// The command's exit codes come from core's vocabulary (EXIT_CODES, with a stop reason's code in
// STOP_REASONS); here, which exit code each kind of call error gives, and the error that stops a
// command before it does anything.
import { type ErrorCode, EXIT_CODES, type ExitCode } from '@enrich/core';

export const EXIT = EXIT_CODES;
export type { ExitCode };

const EXIT_FOR_ERROR: Readonly<Record<ErrorCode, ExitCode>> = {
  'invalid-input': EXIT.invalidInput,
  'bad-request': EXIT.invalidInput,
  config: EXIT.auth,
  unauthorized: EXIT.auth,
  allowance: EXIT.allowance,
  'too-many-results': EXIT.noMatch,
  server: EXIT.service,
  redirect: EXIT.service,
  network: EXIT.service,
  unanswered: EXIT.service,
  'unexpected-status': EXIT.service,
  'bad-response': EXIT.service,
};

export function exitCodeFor(code: ErrorCode): ExitCode {
  return EXIT_FOR_ERROR[code];
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
