// What the engine's tests pass to planBulk and runBulk: a Phone Lookup of a file against a sandbox
// on 127.0.0.1, over real HTTP, with fast retries.
import { DEFAULT_RETRY_POLICY, getOperation } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { DEMO_KEY, type SandboxServer } from '@enrich/sandbox';
import { type BulkOptions, defaultCachePath } from '../src/index.js';

export const op = getOperation('phone-lookup');

/** A distinct valid phone for each i. */
export const phone = (i: number) => `555${String(1_000_000 + i).padStart(7, '0')}`;

/** How the engine's tests reach the sandbox: real HTTP, a 5 s deadline. */
export const sandboxTransport = () => createFetchTransport({ timeoutMs: 5000 });

/** The options of a run from inPath to outPath (the cache beside it), with `more` on top. */
export function sandboxRun(
  server: SandboxServer,
  files: { readonly inPath: string; readonly outPath: string },
  more: Partial<BulkOptions> = {},
): BulkOptions {
  return {
    op,
    ...files,
    cachePath: defaultCachePath(files.outPath),
    apiKey: DEMO_KEY,
    bases: { baseUrl: server.url, baseUrlV3: server.url, sandbox: true },
    maxAgeMs: Number.POSITIVE_INFINITY,
    // The engine's default is every field (as every client); its tests look at the documented ones.
    allExtras: false,
    transport: sandboxTransport,
    policy: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 10, maxDelayMs: 50 },
    concurrency: 4,
    ...more,
  };
}
