// The user's cache folder, where clients keep what can be lost without losing anything paid for:
// the MCP server's answer cache and the pace of the last run (pace-memory.ts). One rule, so that
// the CLI and the MCP server find the same folder.
import { join, win32 } from 'node:path';

/** The environment variable that names the cache folder instead of the platform's default. */
export const CACHE_DIR_ENV = 'ENRICH_CACHE_DIR';

/** The pace of the last run per service, in the cache folder. */
export const PACE_FILE = 'pace.json';

/**
 * `ENRICH_CACHE_DIR` if set; else the platform's folder for caches: `$XDG_CACHE_HOME/enrich` (else
 * `~/.cache/enrich`) on Linux and other systems, `~/Library/Caches/enrich` on macOS,
 * `%LOCALAPPDATA%\enrich\Cache` (else `<home>\AppData\Local\enrich\Cache`) on Windows.
 */
export function cacheFolder(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
  home: string,
): string {
  const given = env[CACHE_DIR_ENV];
  if (given !== undefined && given.trim() !== '') return given;
  if (platform === 'win32')
    return win32.join(env.LOCALAPPDATA || win32.join(home, 'AppData', 'Local'), 'enrich', 'Cache');
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'enrich');
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), 'enrich');
}
