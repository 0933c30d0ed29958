// Where a run's files go by default, and whose answers the cache holds: the same for every client,
// so that the CLI and the extension write the same output beside the input and share one answer
// cache (nothing bought twice because another client asked).
import { basename, dirname, extname, join } from 'node:path';
import { baseUrlOf, type Operation } from '@enrich/core';

/** The answer cache's file name, beside the output unless the user names another. */
export const CACHE_FILE = '.enrich-cache.jsonl';

/** The answer-cache namespace of the embedded sandbox, whatever port it got. */
export const SANDBOX_NAMESPACE = 'sandbox';

/** `<dir>/<name>.<operation><ext>` beside the input (`.csv` when the input has no extension). */
export function defaultOutputPath(inPath: string, op: Operation): string {
  const ext = extname(inPath);
  return join(dirname(inPath), `${basename(inPath, ext)}.${op.id}${ext || '.csv'}`);
}

export function defaultCachePath(outPath: string): string {
  return join(dirname(outPath), CACHE_FILE);
}

export interface Bases {
  readonly baseUrl: string;
  readonly baseUrlV3: string;
  /** The embedded sandbox (any port): its answers are never taken for a real service's. */
  readonly sandbox: boolean;
}

/**
 * Whose answers these are, for the answer cache: "sandbox", or the normalised origin of the base the
 * operation uses (scheme, lower-case host, no default port), followed by the base's path if it has
 * one. `https://API.Example.com:443/` and `https://api.example.com` are one service: the same
 * answers, never paid twice. (The request key already names the operation.)
 */
export function cacheNamespace(op: Operation, where: Bases): string {
  if (where.sandbox) return SANDBOX_NAMESPACE;
  return normaliseBase(baseUrlOf(op, where));
}

export function normaliseBase(base: string): string {
  let url: URL;
  try {
    url = new URL(base.trim());
  } catch {
    return base.trim();
  }
  // URL lower-cases the scheme and host and drops the scheme's default port.
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path}`;
}
