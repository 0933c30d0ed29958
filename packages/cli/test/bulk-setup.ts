// Shared by the bulk tests: one sandbox per test file (sandbox-per-file.ts), its reserved inputs,
// and a bulk run through runBulk with fast retries.
import { join } from 'node:path';
import { DEFAULT_RETRY_POLICY, getOperation, outputColumns } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { DEMO_KEY, RESERVED } from '@enrich/sandbox';
import { runBulk } from '../src/bulk.js';
import { CACHE_FILE } from '../src/main.js';
import { server } from './sandbox-per-file.js';

export { env, server, useSandbox } from './sandbox-per-file.js';

export const reserved = (outcome: string) => {
  const r = RESERVED.find((x) => x.outcome === outcome);
  if (!r) throw new Error(outcome);
  return r;
};

export const fastRetries = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 10, maxDelayMs: 50 };

export const bulk = (dir: string, overrides: Partial<Parameters<typeof runBulk>[0]> = {}) =>
  runBulk({
    op: getOperation('phone-lookup'),
    inPath: join(dir, 'in.csv'),
    outPath: join(dir, 'out.csv'),
    cachePath: join(dir, CACHE_FILE),
    namespace: 'test',
    maxAgeMs: Number.POSITIVE_INFINITY,
    columns: outputColumns(getOperation('phone-lookup')),
    overrides: {},
    sender: {
      settings: { apiKey: DEMO_KEY, baseUrl: server.url, baseUrlV3: server.url },
      transport: createFetchTransport({ timeoutMs: 5000 }),
      policy: fastRetries,
      concurrency: 4,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      now: Date.now,
    },
    ...overrides,
  });
