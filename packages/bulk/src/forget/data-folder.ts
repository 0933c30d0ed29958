// The user's data folder, where what must outlive a cache is kept (issue 38): the spend ledger's
// folder, and beside it the suppression list, the registry of cache files runs wrote, the record of
// forget requests and the retention setting. One rule, so that every client (the CLI, the MCP
// server, VS Code) finds the same folder.
import { join, win32 } from 'node:path';

/** The environment variable that names the data folder instead of the platform's default. */
export const DATA_DIR_ENV = 'ENRICH_DATA_DIR';

/** The files of the data folder this module family keeps. */
export const SUPPRESSION_FILE = 'suppression.json';
export const REGISTRY_FILE = 'caches.jsonl';
export const FORGET_LOG_FILE = 'forget-log.jsonl';
export const RETENTION_FILE = 'retention.json';

/**
 * `ENRICH_DATA_DIR` if set; else the platform's folder for an application's data, the spend
 * ledger's: `$XDG_DATA_HOME/enrich` (else `~/.local/share/enrich`) on Linux and other systems,
 * `~/Library/Application Support/enrich` on macOS, `%LOCALAPPDATA%\enrich` (else
 * `<home>\AppData\Local\enrich`) on Windows.
 */
export function dataFolder(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
  home: string,
): string {
  const given = env[DATA_DIR_ENV];
  if (given !== undefined && given.trim() !== '') return given;
  if (platform === 'win32')
    return win32.join(env.LOCALAPPDATA || win32.join(home, 'AppData', 'Local'), 'enrich');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'enrich');
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'enrich');
}
