// How long answers are kept (issue 38): one setting for every store of the user, in days, 1 to 365,
// 30 by default (as the Sheets store already keeps them). Older answers are not used by any client
// (a run's own --max-age may only be shorter), and they are removed by `enrich cache prune` and by
// the next run that compacts its journal (at most once a day per journal: keep-cache.ts).
// Kept in `retention.json` in the user's data folder: {"v":1,"days":30}.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BulkError } from '../run/bulk-error.js';
import { replaceFile } from './aside-file.js';
import { RETENTION_FILE } from './data-folder.js';

export const DEFAULT_RETENTION_DAYS = 30;
export const MIN_RETENTION_DAYS = 1;
export const MAX_RETENTION_DAYS = 365;
const DAY_MS = 86_400_000;

/**
 * The answers' default maximum age, every client's (the CLI's --max-age, the MCP server, VS Code,
 * the functions server): the default retention, so that a client keeps using what the user's
 * stores keep. (The Sheets add-on cannot import this package and keeps its own 30 days.)
 */
export const DEFAULT_MAX_AGE_MS = DEFAULT_RETENTION_DAYS * DAY_MS;

/** The problem with a number of days, or undefined when it is a whole number from 1 to 365. */
export function retentionProblem(days: number): string | undefined {
  if (!Number.isInteger(days) || days < MIN_RETENTION_DAYS || days > MAX_RETENTION_DAYS) {
    return `the retention must be a whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}; got ${days}`;
  }
  return undefined;
}

/** The retention in days (the default when none was set). A file that cannot be read is an error. */
export function retentionDays(dataDir: string): number {
  const path = join(dataDir, RETENTION_FILE);
  if (!existsSync(path)) return DEFAULT_RETENTION_DAYS;
  let days: unknown;
  try {
    days = (JSON.parse(readFileSync(path, 'utf8')) as { days?: unknown }).days;
  } catch (error) {
    throw new BulkError(`The retention setting ${path} cannot be read (${(error as Error).message})`);
  }
  if (typeof days !== 'number' || retentionProblem(days)) {
    throw new BulkError(`The retention setting ${path} does not hold a number of days from 1 to 365`);
  }
  return days;
}

export function retentionMs(dataDir: string): number {
  return retentionDays(dataDir) * DAY_MS;
}

export function setRetentionDays(dataDir: string, days: number): void {
  const problem = retentionProblem(days);
  if (problem) throw new BulkError(problem);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  replaceFile(join(dataDir, RETENTION_FILE), `${JSON.stringify({ v: 1, days })}\n`);
}
