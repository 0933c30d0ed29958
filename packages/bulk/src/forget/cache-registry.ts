// The registry of answer journals (issue 38): every journal a client writes (a file run's cache
// beside its output, a one-off call's --cache, the MCP server's cache) is named in `caches.jsonl`
// in the user's data folder, so that `enrich forget`, `enrich held` and `enrich cache prune` find
// every store of this user, wherever the runs put them. One line per event, appended with one
// write (O_APPEND, as the spend ledger): {"path":"/abs/.enrich-cache.jsonl","at":<ms>} when a
// journal is used, {"path":...,"compacted":<ms>} when old answers were pruned from it. Holds paths
// only, never an answer.
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REGISTRY_FILE } from './data-folder.js';

export interface RegisteredCache {
  readonly path: string;
  /** When a client last used it (epoch ms). */
  readonly usedAt: number;
  /** When old answers were last pruned from it (epoch ms), if ever. */
  readonly compactedAt: number | undefined;
}

export function registryPath(dataDir: string): string {
  return join(dataDir, REGISTRY_FILE);
}

/** The journals named in the registry, each once, with their latest times. */
export function registeredCaches(dataDir: string): RegisteredCache[] {
  let text: string;
  try {
    text = readFileSync(registryPath(dataDir), 'utf8');
  } catch {
    return [];
  }
  const byPath = new Map<string, { usedAt: number; compactedAt: number | undefined }>();
  for (const raw of text.split('\n')) {
    let line: { path?: unknown; at?: unknown; compacted?: unknown };
    try {
      line = JSON.parse(raw);
    } catch {
      continue; // a torn or blank line
    }
    if (typeof line?.path !== 'string') continue;
    const seen = byPath.get(line.path) ?? { usedAt: 0, compactedAt: undefined };
    if (typeof line.at === 'number') seen.usedAt = Math.max(seen.usedAt, line.at);
    if (typeof line.compacted === 'number')
      seen.compactedAt = Math.max(seen.compactedAt ?? 0, line.compacted);
    byPath.set(line.path, seen);
  }
  return [...byPath].map(([path, times]) => ({ path, ...times }));
}

/**
 * Names a journal in the registry (once a day at most: a line is appended only when the journal is
 * not named yet or was last named on an earlier day). Never fails a run: the registry is a list of
 * where to look, and a failure to write it is returned for the client to say.
 */
export function registerCache(dataDir: string, cachePath: string, now = Date.now()): Error | undefined {
  const path = resolve(cachePath);
  const known = registeredCaches(dataDir).find((c) => c.path === path);
  if (known && Math.floor(known.usedAt / 86_400_000) === Math.floor(now / 86_400_000)) return undefined;
  return appendLine(dataDir, { path, at: now });
}

/** Notes that old answers were pruned from the journal now. */
export function noteCompacted(dataDir: string, cachePath: string, now = Date.now()): Error | undefined {
  return appendLine(dataDir, { path: resolve(cachePath), at: now, compacted: now });
}

function appendLine(dataDir: string, line: object): Error | undefined {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const fd = openSync(registryPath(dataDir), 'a', 0o600);
    try {
      // One write: appenders at once never glue lines; a torn line is skipped on reading.
      writeSync(fd, `\n${JSON.stringify(line)}\n`);
    } finally {
      closeSync(fd);
    }
    return undefined;
  } catch (error) {
    return error as Error;
  }
}
