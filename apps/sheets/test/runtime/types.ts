// What the runtime's users (the tests) name: users, options, execution records, script errors.
import type { SandboxOptions } from '@enrich/sandbox';
import type { Mode } from './execution.js';

export interface User {
  readonly email: string;
}

export interface RuntimeOptions {
  readonly distDir?: string;
  readonly sandbox?: Omit<SandboxOptions, 'now'>;
  /** Network latency added to the sandbox's own delay, per request. */
  readonly extraLatencyMs?: number;
  readonly seed?: number;
  /** The spreadsheet's id (SpreadsheetApp's getId), '1SpreadsheetTestId' unless a test needs two. */
  readonly spreadsheetId?: string;
}

export interface ExecutionRecord {
  readonly fn: string;
  readonly mode: Mode;
  readonly user: string;
  readonly started: number;
  readonly ended: number;
  readonly error: string | null;
  /** The cache and lock calls it made, in order (Execution.calls). */
  readonly calls: readonly string[];
}

/** The script failed as Apps Script would report it (the message a cell or the sidebar shows). */
export class AppsScriptError extends Error {
  constructor(
    message: string,
    readonly fn: string,
  ) {
    super(message);
    this.name = 'AppsScriptError';
  }
}
